import {
  DEFAULT_GUARD_SETTINGS,
  guardTurn,
  initialGuardsState,
  type GuardDecision,
  type GuardedCall,
  type GuardSettings,
  type GuardsState,
} from '../../src/workflows/principles/guards';
import { CallEffect } from '../../src/workflows/principles/progress';

/**
 * The calls and turns the guards' unit tests hand to guardTurn (guards.test.ts and the
 * guards-*-rules tests), built the way the goal workflow builds them from a tool's outcome.
 */

/** The consequence the guards' prompts name unless a test gives another. */
export const STUCK = 'stops the goal as stuck';

export const read = (path: string, atToolCall: number, extra: Partial<GuardedCall> = {}): GuardedCall => ({
  toolName: 'read_file',
  input: { path },
  summary: `read_file: ${path}`,
  resultText: `contents of ${path}`,
  failed: false,
  candidates: [],
  atToolCall,
  effect: CallEffect.Read,
  hypothesisMismatch: undefined,
  ...extra,
});

/** A write that leaves the workspace in a lasting state named after the file and its content. */
export const write = (path: string, content: string, atToolCall: number, stateAfter?: string): GuardedCall =>
  read(path, atToolCall, {
    toolName: 'write_file',
    input: { path, content },
    summary: `write_file: ${path}`,
    resultText: `Replaced the content of ${path}`,
    effect: CallEffect.Change,
    stateAfter: stateAfter ?? `${path}#${content}`,
  });

/** A command that failed (a test run with failures), unless `extra` says otherwise. */
export const command = (line: string, atToolCall: number, extra: Partial<GuardedCall> = {}): GuardedCall =>
  read('', atToolCall, {
    toolName: 'run_command',
    input: { command: line },
    summary: `run_command: ${line}`,
    resultText: 'exit 1: 3 tests failed',
    failed: true,
    ...extra,
  });

export const fresh = () => initialGuardsState({ toolCalls: 0, modelTurns: 0 });

/** One turn of calls; the goal's tool-call count is the last call's. */
export function turn(
  state: GuardsState,
  modelTurns: number,
  calls: GuardedCall[],
  settings: GuardSettings = DEFAULT_GUARD_SETTINGS,
  { consequence = STUCK, progressCycle }: { consequence?: string; progressCycle?: number } = {},
): GuardDecision[] {
  return guardTurn(state, settings, {
    calls,
    toolCalls: calls[calls.length - 1]?.atToolCall ?? 0,
    modelTurns,
    progressCycle,
    consequence,
  });
}

/** One call per turn, as most scripted scenarios make them; turn n is tool call n. Returns the decisions by turn. */
export function oneByOne(state: GuardsState, calls: GuardedCall[], settings = DEFAULT_GUARD_SETTINGS) {
  return calls.map((call) => turn(state, call.atToolCall, [call], settings));
}

/** "3:loop:warn" for each decision, by the turn it was made in. */
export const fired = (decisions: GuardDecision[][]) =>
  decisions.flatMap((list, index) =>
    list.map((decision) => `${index + 1}:${decision.guard}:${decision.action}`),
  );
