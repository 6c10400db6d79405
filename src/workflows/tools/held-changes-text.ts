import { visibleText } from './call-text';
import type { WorkspaceEffects } from './tool-outcome';

/** The kinds of held change, in the order a human reads them: deletions first. */
export const HELD_CHANGE_KINDS = [
  ['deletes', 'deleted'],
  ['modifies', 'modified'],
  ['creates', 'created'],
] as const;

/**
 * The changes a held call would apply, for the human deciding on them, deletions first, each path
 * with nothing a terminal or page could hide. Whole by default (the layer lists every path, so
 * approving applies exactly these); `shown` names only the first paths of each kind and counts
 * the rest ("and 251 more", for `keel pending`, which says where to see them). A list from an
 * older worker may still count paths it never named (`omitted`): they are counted too.
 */
export function heldChangesLines(changes: WorkspaceEffects, options: { shown?: number } = {}): string[] {
  const lines: string[] = [];
  for (const [label, kind] of HELD_CHANGE_KINDS) {
    const paths = changes[kind];
    const named = options.shown === undefined ? paths : paths.slice(0, options.shown);
    const more = paths.length - named.length + (changes.omitted?.[kind] ?? 0);
    if (paths.length === 0 && more === 0) continue;
    const listed = named.map((path) => visibleText(path, { oneLine: true })).join(', ');
    lines.push(`${label}: ${listed}${more > 0 ? `${listed === '' ? '' : ' '}and ${more} more` : ''}`);
  }
  for (const [directory, count] of Object.entries(changes.collapsed ?? {}))
    lines.push(`inside ${visibleText(directory, { oneLine: true })}: ${count} entries`);
  return lines;
}

/** Whether `heldChangesLines(changes, { shown })` leaves any listed path unnamed. */
export function heldChangesCut(changes: WorkspaceEffects, shown: number): boolean {
  return HELD_CHANGE_KINDS.some(([, kind]) => changes[kind].length > shown);
}
