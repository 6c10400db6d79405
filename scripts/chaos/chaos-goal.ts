import type { ScenarioInput } from '../../src/scripted-model/scenario';

/** The text that picks the chaos scenario on the loopback model. */
export const CHAOS_GOAL = 'CHAOS: append every numbered effect to effects.txt, one per call';
export const EFFECTS_FILE = 'effects.txt';

/** The command of call `index` (1-based): an append, irreversible because the goal allows network. */
export function effectCommand(index: number): string {
  return `echo effect-${index} >> ${EFFECTS_FILE}`;
}

/** A scripted model that makes `calls` irreversible appends, one a turn, then finishes. */
export function chaosScenario(calls: number): ScenarioInput {
  return {
    name: 'chaos',
    match: CHAOS_GOAL,
    turns: [
      ...Array.from({ length: calls }, (_, index) => ({
        toolCalls: [{ name: 'run_command', input: { command: effectCommand(index + 1) } }],
      })),
      { text: `Appended ${calls} effects.` },
    ],
  };
}

/** The effect a call's summary or command names (`effect-7` → 7), if any. */
export function effectIndexIn(text: string): number | undefined {
  const match = /effect-(\d+)/.exec(text);
  return match ? Number(match[1]) : undefined;
}

export interface EffectCount {
  /** Effects that appear more than once: an irreversible call that ran twice. */
  readonly duplicated: number[];
  /** Effects of calls 1..calls that never appeared. */
  readonly missing: number[];
}

/** Reads an effects file's lines against the calls the goal was scripted to make. */
export function countEffects(content: string, calls: number): EffectCount {
  const seen = new Map<number, number>();
  for (const line of content.split('\n')) {
    const index = effectIndexIn(line);
    if (index !== undefined) seen.set(index, (seen.get(index) ?? 0) + 1);
  }
  const duplicated = [...seen].filter(([, count]) => count > 1).map(([index]) => index);
  const missing = Array.from({ length: calls }, (_, index) => index + 1).filter((index) => !seen.has(index));
  return { duplicated: duplicated.sort((a, b) => a - b), missing };
}

/** The start input of a chaos goal working in `workspace`. */
export function chaosGoalInput(workspace: string, calls: number) {
  return {
    goal: CHAOS_GOAL,
    workspace,
    // With network allowed every run_command is irreversible: each append is approved and runs
    // at most once, which is what chaos measures.
    sandbox: { network: true },
    // A short heartbeat timeout lets the server notice a killed worker in seconds.
    timing: { heartbeatTimeoutMs: 2000 },
    limits: { maxTurns: calls + 5, maxToolCalls: calls + 5 },
    ledger: { maxEvents: 10_000 },
    // The scripted model makes one call a turn and never answers a checkpoint; the checkpoint
    // guard would rightly stop it at the second. Chaos measures durability.
    guards: { checkpoints: { enabled: false } },
  };
}
