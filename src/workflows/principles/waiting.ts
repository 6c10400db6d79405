import { z } from 'zod';
import { callKey } from './loop-guard';

/**
 * Waiting is not looping (issue 44). A task that polls a build (`sleep 5; cat build.status`)
 * until it reports done makes the same call again and again, often with the same answer for a
 * while: counting repeats stopped good pollers at poll 7–10. A call that declares a wait (a shell
 * command that sleeps) is bounded by the time it has waited instead, and by the goal's budget:
 *
 * - the loop, cycle and stagnation guards do not count it, nor does the exploration stretch;
 * - only a sleep of MIN_WAIT_SECONDS or more declares a wait: `sleep 0; cat notes.md` waits for
 *   nothing, and its repeats are a loop like any other;
 * - the time waited adds up over the waiting calls, whatever they sleep and whichever of them
 *   alternate (keel's own "after 2.1 s" or "Timed out after 60 s" when the result has it, else the
 *   sleeps the command declares); a waiting call that brings new information (its result, noise
 *   taken out, is new: progress.ts) starts the wait again, and a new lasting state ends it;
 * - past WAIT_WARN_SECONDS of waiting on one call the model is told; past WAIT_STOP_SECONDS, once
 *   it has read that, the goal stops (or the plan step fails) like any other guard stop.
 *
 * A poll whose output moves is never stopped by this: every new output starts its wait again.
 * A poll that does not sleep (`cat build.status` in a tight loop) is not a declared wait: its
 * fixed answers are a loop like any other.
 */

/** Ten minutes without anything new earns a prompt; fifteen stop it (a long build still fits). */
export const WAIT_WARN_SECONDS = 600;
export const WAIT_STOP_SECONDS = 900;
/** Below a second a sleep is a spelling, not a wait: it would let any loop pass as a poll. */
export const MIN_WAIT_SECONDS = 1;

export const waitingSchema = z.object({
  /** The latest waiting call (waitKey). */
  key: z.string(),
  /** Seconds waited since anything new. */
  seconds: z.number().nonnegative(),
  /** The tool-call count of the wait's first call. */
  sinceToolCall: z.number().int().nonnegative(),
  /** The model turn of its latest call: time moved then, so a status said again is no parrot. */
  atTurn: z.number().int().nonnegative().optional(),
});
export type Waiting = z.infer<typeof waitingSchema>;

const UNIT_SECONDS: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * `sleep` where a command starts (not `grep sleep 5 notes`), with its duration (group 2) and unit
 * (group 3). A fresh RegExp per use: a shared global one keeps its lastIndex between calls.
 */
const sleepsIn = () => /((?:^|[;&|(]|\bdo|\bthen|\belse)\s*sleep)\s+(\d+(?:\.\d+)?)([smhd]?)(?![\w.])/g;

function commandOf(toolName: string, input: unknown): string | undefined {
  if (toolName !== 'run_command') return undefined;
  const command = (input as { command?: unknown } | null)?.command;
  return typeof command === 'string' ? command : undefined;
}

/**
 * The seconds a call declares it waits: the sum of the `sleep N[smhd]` commands in a shell command
 * line (run through `run_command`); undefined when it declares none, or less than MIN_WAIT_SECONDS.
 */
export function declaredWaitSeconds(toolName: string, input: unknown): number | undefined {
  const command = commandOf(toolName, input);
  if (command === undefined) return undefined;
  let seconds = 0;
  for (const match of command.matchAll(sleepsIn()))
    seconds += Number(match[2]) * (UNIT_SECONDS[match[3] ?? ''] ?? 1);
  return seconds >= MIN_WAIT_SECONDS ? seconds : undefined;
}

/**
 * The call as the guards key it (loop-guard's callKey) with its sleeps' durations taken out:
 * `sleep 1; cat s` and `sleep 2; cat s` poll the same thing, so alternating them is one call.
 */
export function waitKey(toolName: string, input: unknown): string {
  const command = commandOf(toolName, input);
  if (command === undefined) return callKey(toolName, input);
  return callKey(toolName, { ...(input as object), command: command.replace(sleepsIn(), '$1') });
}

/**
 * keel's own timing at the head of a command's result, in seconds: "Exit code 0 after 2.1 s.",
 * "Timed out after 60 s;" (a `sleep 700` killed at 60 s waited 60 s, not 700), "Cancelled after
 * 3.2 s;". A rule-approved call's result starts with one line in parentheses naming the rule.
 */
export function reportedSeconds(resultText: string): number | undefined {
  const match = /^(?:\([^\n]*\)\n)?[^\n]*? after (\d+(?:\.\d+)?) s[.;]/.exec(resultText);
  return match ? Number(match[1]) : undefined;
}

export type WaitVerdict =
  { kind: 'none' } | { kind: 'warn' | 'stop'; seconds: number; limit: number; sinceToolCall: number };

/** One waiting call as the wait sees it; `brought`: its result was new information (progress.ts). */
export interface WaitingCall {
  key: string;
  declaredSeconds: number;
  resultText: string;
  atToolCall: number;
  atTurn?: number;
  brought: boolean;
}

/** The tool-call count the wait this call joins began at: a call that brought something new begins one. */
export function waitStart(
  waiting: Waiting | undefined,
  call: { atToolCall: number; brought: boolean },
): number {
  return waiting === undefined || call.brought ? call.atToolCall : waiting.sinceToolCall;
}

/**
 * One waiting call: adds its time to the wait (or starts a new wait when it brought something new)
 * and says whether the wait has gone on too long. `warned`: a warning about this wait was given;
 * `warnedAndRead`: the model has had a turn since.
 */
export function observeWait(
  waiting: Waiting | undefined,
  call: WaitingCall,
  warning: { warned: boolean; warnedAndRead: boolean },
): { waiting: Waiting; verdict: WaitVerdict } {
  const took = reportedSeconds(call.resultText) ?? call.declaredSeconds;
  const sinceToolCall = waitStart(waiting, call);
  const goesOn = waiting !== undefined && !call.brought;
  const next: Waiting = {
    key: call.key,
    seconds: (goesOn ? waiting.seconds : 0) + took,
    sinceToolCall,
    ...(call.atTurn === undefined ? {} : { atTurn: call.atTurn }),
  };
  const found = { seconds: next.seconds, sinceToolCall: next.sinceToolCall };
  if (warning.warnedAndRead && next.seconds >= WAIT_STOP_SECONDS)
    return { waiting: next, verdict: { kind: 'stop', ...found, limit: WAIT_STOP_SECONDS } };
  if (!warning.warned && next.seconds >= WAIT_WARN_SECONDS)
    return { waiting: next, verdict: { kind: 'warn', ...found, limit: WAIT_WARN_SECONDS } };
  return { waiting: next, verdict: { kind: 'none' } };
}

export function waitPrompt(options: { summary: string; seconds: number; consequence: string }): string {
  return [
    `[Long wait] You have waited ${Math.round(options.seconds)} s and nothing new came; the latest call:`,
    `  ${options.summary}`,
    'If what you wait for is still coming, keep waiting with longer sleeps between checks; if it may never come, look at why (a log, the process) or say in plain text what blocks the task.',
    `After ${WAIT_STOP_SECONDS} s of waiting without anything new, keel ${options.consequence}.`,
  ].join('\n');
}
