import { changeListBytes } from '../../../workflows/approvals/held-at-once';
import type { WorkspaceEffects } from '../../../workflows/tools/tool-outcome';

/** One count for the activity's bound and the workflow's total (held-at-once.ts). */
export { changeListBytes };

/**
 * The most a layer's change list may weigh, in bytes of its JSON (the form it travels in). A held
 * list is listed whole (its approver approves exactly it), and it travels in Temporal payloads:
 * the activity's result, then the goal's state twice over (the held changes, later the applied
 * outcome's effects), which queries and continue-as-new carry. Temporal refuses a payload over
 * 2 MB and warns past 512 KB, so one list stays within 512 KiB. About 10,000 paths of 50 bytes:
 * more than anyone reviews, yet the layer-entries limit (20,000 by default) alone allows lists
 * of 80 MB of long paths.
 */
export const CHANGE_LIST_MAX_BYTES = 512 * 1024;

/**
 * Why a layer's change list is too long to hold for a human, or undefined when it is not. Such a
 * layer is discarded whole, like one over the layer limits: nothing of it is applied or held.
 */
export function changeListOversize(
  effects: WorkspaceEffects,
  maxBytes: number = CHANGE_LIST_MAX_BYTES,
): string | undefined {
  const bytes = changeListBytes(effects);
  if (bytes <= maxBytes) return undefined;
  const paths = effects.created.length + effects.modified.length + effects.deleted.length;
  return `its list of changes (${paths} paths, ${bytes} bytes) is longer than the ${maxBytes} bytes a call may hold: too many changes for a human to review, so make them in smaller steps`;
}

/** Paths of each kind a call's result keeps for the model and the goal's state; the rest are counted. */
export const EFFECT_PATHS_KEPT = 200;

/**
 * The change list as the call's result carries it: the first paths of each kind, the rest
 * counted. A held set is listed whole for its approver (layered-command.ts); a layer applied
 * without a human (a build writing thousands of files) must not put every path into the goal's
 * state, which every later turn, query and continue-as-new carries.
 */
export function listedForTheResult(
  effects: WorkspaceEffects,
  kept: number = EFFECT_PATHS_KEPT,
): WorkspaceEffects {
  const kinds = ['created', 'modified', 'deleted'] as const;
  if (kinds.every((kind) => effects[kind].length <= kept)) return effects;
  const omitted = { created: 0, modified: 0, deleted: 0, ...effects.omitted };
  const cut = { ...effects };
  for (const kind of kinds) {
    omitted[kind] += Math.max(0, effects[kind].length - kept);
    cut[kind] = effects[kind].slice(0, kept);
  }
  return { ...cut, omitted };
}
