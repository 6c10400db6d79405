import { visibleText } from './call-text';
import type { WorkspaceEffects } from './tool-outcome';

/**
 * The changes a held call would apply, for the human deciding on them: every path the layer
 * listed (up to the 200 per kind it keeps, then how many more), deletions first, each path with
 * nothing a terminal or page could hide. Approving applies exactly these.
 */
export function heldChangesLines(changes: WorkspaceEffects): string[] {
  const lines: string[] = [];
  for (const [label, kind] of [
    ['deletes', 'deleted'],
    ['modifies', 'modified'],
    ['creates', 'created'],
  ] as const) {
    const paths = changes[kind];
    const more = changes.omitted?.[kind] ?? 0;
    if (paths.length === 0 && more === 0) continue;
    const listed = paths.map((path) => visibleText(path, { oneLine: true })).join(', ');
    lines.push(`${label}: ${listed}${more > 0 ? ` and ${more} more` : ''}`);
  }
  for (const [directory, count] of Object.entries(changes.collapsed ?? {}))
    lines.push(`inside ${visibleText(directory, { oneLine: true })}: ${count} entries`);
  return lines;
}
