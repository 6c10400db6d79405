import type { WorkspaceEffects } from '../tools/tool-outcome';

/**
 * How much a goal holds for its approvers at once (issue 43: approvers see all they approve).
 * One call's change list is bounded in the activity (change-list-size.ts, 512 KiB), but a turn
 * of several calls can hold several: every held list lives in the goal's state until the turn
 * ends (waiting for a human, then settled), and that state is what the status
 * query (`keel pending`, `--json`, `--changes`) and a continue-as-new carry as one payload, and
 * Temporal refuses a payload over 2 MB. Past this total a query would fail, so approvers would see
 * nothing, and the goal could not hand over to a new run. A list that would pass it is discarded
 * (the call fails, nothing applied); the model may try again in a later turn.
 * Pure: the workflow decides with it, and replay decides alike.
 */
export const HELD_AT_ONCE_MAX_BYTES = 1024 * 1024;

/** The UTF-8 bytes of a change list's paths as JSON (quotes and escapes included: that is what travels). */
export function changeListBytes(effects: WorkspaceEffects): number {
  const text = JSON.stringify([effects.created, effects.modified, effects.deleted, effects.collapsed ?? {}]);
  let bytes = 0;
  for (const character of text) {
    const code = character.codePointAt(0) ?? 0;
    bytes += code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
  }
  return bytes;
}

/**
 * Why `next` may not be held beside the lists the turn's other calls hold, or undefined when it
 * may (a call holding nothing always may).
 */
export function heldAtOnceRefusal(
  others: readonly WorkspaceEffects[],
  next: WorkspaceEffects | undefined,
  maxBytes: number = HELD_AT_ONCE_MAX_BYTES,
): string | undefined {
  if (next === undefined || others.length === 0) return undefined;
  const othersBytes = others.reduce((sum, list) => sum + changeListBytes(list), 0);
  const nextBytes = changeListBytes(next);
  if (othersBytes + nextBytes <= maxBytes) return undefined;
  const calls = others.length === 1 ? '1 other call' : `${others.length} other calls`;
  return (
    `Not applied: its changes would wait for a human beside those ${calls} of this turn hold, ` +
    `and together their lists of changes (${kib(othersBytes + nextBytes)}) pass the ${kib(maxBytes)} ` +
    'keel holds for approvers at once. Nothing of it reached the workspace: its changes were discarded. ' +
    'Run it again in a later turn, or make its changes in smaller steps.'
  );
}

const kib = (bytes: number): string => `${Math.ceil(bytes / 1024)} KiB`;
