import { intentOf, intentText, type CallIntent } from '../../principles/call-intent';
import { effectsText, MAX_EFFECTS, overlappingEffects, placeOf } from '../../principles/denied-effects';
import { isHarnessTool } from '../../tools/harness-tools';
import type { GoalState, ToolCallRecord } from '../lifecycle/state';

/**
 * A human's denial covers what the denied call would have deleted, emptied or replaced, whatever
 * tool tries it next (issue 44): after `rm -rf build` is denied, a `write_file` emptying
 * `build/a.txt` — which the default policy runs unasked — waits for a human like the denied call
 * did, and under "do not ask again" is refused without asking. Pure over recorded state, so the
 * workflow decides alike on replay.
 */

/** What a call touches that a human refused: the denied intent, and the paths they share. */
export interface DeniedEffectMatch {
  intent: CallIntent;
  overlap: string[];
}

/**
 * The denied intent whose effects this call would touch, newest first: the denials the guards
 * counted (any decision that refused a call), then those a human asked not to be asked again for.
 */
export function deniedEffectFor(
  state: Pick<GoalState, 'guards' | 'rememberedDenials' | 'config'>,
  call: Pick<ToolCallRecord, 'toolName' | 'input'>,
): DeniedEffectMatch | undefined {
  const effects = intentOf(call.toolName, call.input).effects ?? [];
  if (effects.length === 0) return undefined;
  const denied = [
    ...(state.rememberedDenials ?? []).map((remembered) => remembered.intent),
    ...(state.guards?.denied ?? []).map((entry) => entry.intent),
  ].reverse();
  for (const intent of denied) {
    // both sides relative to the workspace: `cd /ws && rm -rf build` recorded `/ws/build`, while
    // the file tools take `build/a.txt`
    const overlap = overlappingEffects(effects, intent.effects ?? [], state.config.workspace);
    if (overlap.length > 0) return { intent, overlap };
  }
  return undefined;
}

/**
 * Holds a call that would run unasked for a human when its effects touch a denied one: it gets an
 * approval record and a reason the approver reads. True when it was held. Calls already waiting,
 * reads and keel's own bookkeeping are left as they are.
 */
export function holdForDeniedEffects(
  call: ToolCallRecord,
  state: Pick<GoalState, 'guards' | 'rememberedDenials' | 'config'>,
  nowMs: number,
): boolean {
  if (call.status !== 'ready' || call.approval !== undefined) return false;
  if (call.reversibility === 'read-only' || isHarnessTool(call.toolName)) return false;
  const match = deniedEffectFor(state, call);
  if (match === undefined) return false;
  call.status = 'awaiting-approval';
  call.tierReason =
    `it would delete or overwrite ${effectsText(match.overlap)}, which a human refused ` +
    `(${intentText(match.intent)}): a denial covers those effects through any tool`;
  call.approval = {
    requestedAt: new Date(nowMs).toISOString(),
    deadlineMs: nowMs + state.config.limits.approvalTimeoutMs,
  };
  return true;
}

/** Enough denied paths for a command's layer to check against; more would only grow its input. */
const MAX_DENIED_PATHS = 4 * MAX_EFFECTS;

/**
 * Every path a human's denials in this goal cover, as places in the workspace, newest first: a
 * command's layer checks its changes against them before applying (layered-command.ts), since a
 * command's text need not name what it changes (`python3 wipe.py`, a loop over `build/*`).
 */
export function deniedEffectPaths(
  state: Pick<GoalState, 'guards' | 'rememberedDenials' | 'config'>,
): string[] {
  const intents = [
    ...(state.rememberedDenials ?? []).map((remembered) => remembered.intent),
    ...(state.guards?.denied ?? []).map((entry) => entry.intent),
  ].reverse();
  const paths = intents.flatMap((intent) =>
    (intent.effects ?? []).map((path) => placeOf(path, state.config.workspace)),
  );
  return [...new Set(paths)].filter((path) => path !== '.' && path !== '/').slice(0, MAX_DENIED_PATHS);
}
