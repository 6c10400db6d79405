import { z } from 'zod';

/**
 * Waiting is not looping (issue 44). A task that polls a build (`sleep 5; cat build.status`)
 * until it reports done makes the same call again and again, often with the same answer for a
 * while: counting repeats stopped good pollers at poll 7–10. A call that declares a wait (a shell
 * command that sleeps) is bounded by the time it has waited instead, and by the goal's budget:
 *
 * - the loop, cycle and stagnation guards do not count it, nor does the exploration stretch;
 * - the time waited on the same call adds up (keel's own "after 2.1 s" when the result has it,
 *   else the sleeps the command declares); a different call that waits starts a new wait, and a
 *   new lasting state in the workspace ends it;
 * - past WAIT_WARN_SECONDS of waiting on one call the model is told; past WAIT_STOP_SECONDS, once
 *   it has read that, the goal stops (or the plan step fails) like any other guard stop.
 *
 * A poll whose output moves needs none of this: every new output is new information (progress.ts).
 * A poll that does not sleep (`cat build.status` in a tight loop) is not a declared wait: its
 * fixed answers are a loop like any other.
 */

/** Ten minutes on one call earns a prompt; fifteen stop it (a long build still fits). */
export const WAIT_WARN_SECONDS = 600;
export const WAIT_STOP_SECONDS = 900;

export const waitingSchema = z.object({
  /** The waiting call (loop-guard's callKey). */
  key: z.string(),
  /** Seconds waited on it so far. */
  seconds: z.number().nonnegative(),
  /** The tool-call count of its first call. */
  sinceToolCall: z.number().int().nonnegative(),
  /** The model turn of its latest call: time moved then, so a status said again is no parrot. */
  atTurn: z.number().int().nonnegative().optional(),
});
export type Waiting = z.infer<typeof waitingSchema>;

const UNIT_SECONDS: Record<string, number> = { '': 1, s: 1, m: 60, h: 3600, d: 86_400 };

/**
 * The seconds a call declares it waits: the sum of the `sleep N[smhd]` commands in a shell command
 * line (run through `run_command`); undefined when it declares none.
 */
export function declaredWaitSeconds(toolName: string, input: unknown): number | undefined {
  if (toolName !== 'run_command') return undefined;
  const command = (input as { command?: unknown } | null)?.command;
  if (typeof command !== 'string') return undefined;
  let seconds = 0;
  let found = false;
  // `sleep` where a command starts (not `grep sleep 5 notes`).
  const sleeps = /(?:^|[;&|(]|\bdo|\bthen|\belse)\s*sleep\s+(\d+(?:\.\d+)?)([smhd]?)(?![\w.])/g;
  for (const match of command.matchAll(sleeps)) {
    found = true;
    seconds += Number(match[1]) * (UNIT_SECONDS[match[2] ?? ''] ?? 1);
  }
  return found ? seconds : undefined;
}

/** keel's own timing at the head of a command's result ("Exit code 0 after 2.1 s."), in seconds. */
export function reportedSeconds(resultText: string): number | undefined {
  const match = /^[^\n]*? after (\d+(?:\.\d+)?) s\./.exec(resultText);
  return match ? Number(match[1]) : undefined;
}

export type WaitVerdict =
  { kind: 'none' } | { kind: 'warn' | 'stop'; seconds: number; limit: number; sinceToolCall: number };

/**
 * One waiting call: adds its time to the wait on the same call (or starts a new wait) and says
 * whether the wait has gone on too long. `warned`: a wait warning was given; `warnedAndRead`: the
 * model has had a turn since.
 */
export function observeWait(
  waiting: Waiting | undefined,
  call: { key: string; declaredSeconds: number; resultText: string; atToolCall: number; atTurn?: number },
  warning: { warned: boolean; warnedAndRead: boolean },
): { waiting: Waiting; verdict: WaitVerdict } {
  const took = reportedSeconds(call.resultText) ?? call.declaredSeconds;
  const same = waiting !== undefined && waiting.key === call.key;
  const next: Waiting = {
    key: call.key,
    seconds: (same ? waiting.seconds : 0) + took,
    sinceToolCall: same ? waiting.sinceToolCall : call.atToolCall,
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
    `[Long wait] You have waited ${Math.round(options.seconds)} s on the same call:`,
    `  ${options.summary}`,
    'If what you wait for is still coming, keep waiting with longer sleeps between checks; if it may never come, look at why (a log, the process) or say in plain text what blocks the task.',
    `After ${WAIT_STOP_SECONDS} s of waiting on this call, keel ${options.consequence}.`,
  ].join('\n');
}
