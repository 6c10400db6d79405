import { intentOf } from './call-intent';
import { turnWithGuardsOff } from './denial-record';
import { type GuardDecision } from './guard-decisions';
import { denialDecision } from './guards-denial';
import { hypothesisDecision } from './guards-hypothesis';
import { cycleDecision, loopDecision } from './guards-loop';
import { type GuardSettings } from './guards-settings';
import { initialGuardsState, type GuardsState, type TurnContext, type TurnFacts } from './guards-state';
import { explorationDecision, noteProgress, stagnationDecision } from './guards-stagnation';
import { waitDecision } from './wait-guard';
import { declaredWaitSeconds, waitKey } from './waiting';
import { CallEffect, judgeProgress, ProgressKind } from './progress';

/**
 * The hard guards against a misbehaving model (issues 10 and 22), as one pure state machine the
 * workflow drives after each turn and after each reply to a checkpoint. Each guard first prompts
 * the model directly, naming what it saw; only once the model has read that prompt (it had a turn
 * since) and the behaviour goes on does the goal stop as `stuck` (or, with planning on, the active
 * step fails and the plan backtracks). Every decision carries its numbers, for the ledger. All on
 * by default; each can be tuned or switched off in goal input (`guards`).
 */

/** keel's tools whose result depends on nothing but the paths they name (progress.ts: checks). */
const READS_OF_NAMED_PATHS: ReadonlySet<string> = new Set(['read_file', 'list_dir', 'search']);

// Split by guard (each re-exported here, so importers keep one module): the settings and the
// state, then each guard's turn-by-turn decisions in guards-<guard>.ts.
export { DEFAULT_GUARD_SETTINGS, guardSettingsSchema, type GuardSettings } from './guards-settings';
export {
  guardsStateSchema,
  initialGuardsState,
  type GuardedCall,
  type GuardsState,
  type TurnFacts,
} from './guards-state';
export { answersCheckpoint, guardCheckpointReply, rememberModelReply } from './guards-checkpoint';
export { GuardAction, GuardName, type GuardDecision } from './guard-decisions';

/**
 * After a turn's calls have run (or were denied) and their results are known: per call the loop,
 * cycle, hypothesis and denial guards, then stagnation and exploration over the turn. Returns
 * every decision; the caller acts on the first stop, if any.
 */
export function guardTurn(state: GuardsState, settings: GuardSettings, facts: TurnFacts): GuardDecision[] {
  if (!settings.enabled) return turnWithGuardsOff(state.denied, facts.calls); // denials still recorded
  const context: TurnContext = { settings, modelTurns: facts.modelTurns, consequence: facts.consequence };
  const decisions: GuardDecision[] = [];
  const add = (decision: GuardDecision | undefined) => {
    if (decision) decisions.push(decision);
  };
  let lastNew: number | undefined;
  let lastChange: number | undefined;
  let waitsSinceChange = 0;
  for (const call of facts.calls) {
    const waits =
      call.effect === CallEffect.Denied ? undefined : declaredWaitSeconds(call.toolName, call.input);
    const key = waitKey(call.toolName, call.input);
    const progress = judgeProgress(state.memory, {
      effect: call.effect,
      key,
      resultText: call.resultText,
      ...(call.stateAfter === undefined ? {} : { stateAfter: call.stateAfter }),
      targets: intentOf(call.toolName, call.input).targets,
      readsNamedPathsOnly: READS_OF_NAMED_PATHS.has(call.toolName),
    });
    if (call.effect === CallEffect.Denied) add(denialDecision(state, context, call));
    else if (waits !== undefined) {
      const brought = progress !== ProgressKind.Nothing; // output that moved begins the wait again
      add(waitDecision(state, context, { ...call, key, declaredSeconds: waits, brought }));
    } else {
      // A repeat with a new lasting state in between is a re-run (tests after an edit), not a loop.
      const since = Math.max(lastChange ?? 0, state.exploration?.atToolCall ?? 0);
      add(loopDecision(state, context, call, since));
      add(cycleDecision(state, context, call));
      add(hypothesisDecision(state, context, call));
    }
    // A wait is bounded by the time it waits (waiting.ts), not by stagnation's count.
    const brought = progress !== ProgressKind.Nothing || waits !== undefined;
    state.recentProgress = [...state.recentProgress, brought].slice(-settings.stagnation.window);
    if (progress !== ProgressKind.Nothing) lastNew = call.atToolCall;
    if (waits !== undefined) waitsSinceChange += 1;
    else if (progress === ProgressKind.NewState) {
      lastChange = call.atToolCall;
      waitsSinceChange = 0;
      delete state.waiting;
    }
  }
  noteProgress(state, facts, lastNew, lastChange);
  if (state.exploration && waitsSinceChange > 0)
    state.exploration.waitCalls = (state.exploration.waitCalls ?? 0) + waitsSinceChange;
  add(stagnationDecision(state, context));
  add(explorationDecision(state, context, facts));
  state.decisions += decisions.length;
  return decisions;
}

/**
 * A new task, or a new plan attempt after a backtrack: the stretches start again. What the goal
 * has seen and what was denied stay: they are facts about the workspace and the human. So does
 * the checkpoint record (the model's answers are a fact about the model), and with it the
 * checkpoint warning, so a later stop for held replies still names the turn it was warned in.
 */
export function restartGuards(
  state: GuardsState,
  at: { toolCalls: number; modelTurns: number; progressCycle?: number },
): void {
  const fresh = initialGuardsState(at);
  state.recentCalls = fresh.recentCalls;
  state.loopWarnedKeys = fresh.loopWarnedKeys;
  state.progress = fresh.progress;
  state.exploration = fresh.exploration;
  state.recentProgress = fresh.recentProgress;
  state.hypotheses = fresh.hypotheses;
  delete state.waiting;
  state.warnings = state.warnings.filter(
    (warning) => warning.about.startsWith('denial ') || warning.about === 'checkpoints',
  );
}
