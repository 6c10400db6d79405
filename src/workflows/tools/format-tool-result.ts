import type { ToolOutcome, WorkspaceEffects } from './tool-outcome';

/** How many paths of each kind of effect are named before "+N more". */
const EFFECT_PATHS_SHOWN = 5;

/**
 * The text the model reads as a tool result: the content, then (on failure) the tool's numbered
 * candidate next actions, then which files the call changed. Deterministic, so the workflow can
 * rebuild the exact message on replay; it adds nothing specific to any language or ecosystem.
 */
export function formatToolResult(outcome: ToolOutcome): string {
  const sections = [outcome.content.trimEnd()];
  if (!outcome.ok && outcome.candidates.length > 0) {
    const numbered = outcome.candidates.map((candidate, index) => `${index + 1}. ${candidate}`);
    sections.push(['Candidate next actions:', ...numbered].join('\n'));
  }
  if (outcome.effects !== undefined) sections.push(formatEffects(outcome.effects));
  return sections.filter((section) => section !== '').join('\n\n');
}

function formatEffects(effects: WorkspaceEffects): string {
  const lines = (
    [
      ['Created', effects.created],
      ['Modified', effects.modified],
      ['Deleted', effects.deleted],
    ] as const
  )
    .map(([label, paths]) => [label, paths, effects.omitted?.[kindOf(label)] ?? 0] as const)
    .filter(([, paths]) => paths.length > 0)
    .map(([label, paths, omitted]) => `${label}: ${listPaths(paths, omitted)}`);
  const collapsed = Object.entries(effects.collapsed ?? {});
  if (collapsed.length > 0)
    lines.push(
      `Also changed: ${collapsed.map(([directory, count]) => `${directory} (${count} entries)`).join(', ')}`,
    );
  return lines.length > 0 ? lines.join('\n') : 'Workspace changes: none.';
}

function kindOf(label: 'Created' | 'Modified' | 'Deleted'): 'created' | 'modified' | 'deleted' {
  return label === 'Created' ? 'created' : label === 'Modified' ? 'modified' : 'deleted';
}

function listPaths(paths: readonly string[], omitted: number): string {
  const shown = paths.slice(0, EFFECT_PATHS_SHOWN).join(', ');
  const hidden = paths.length - EFFECT_PATHS_SHOWN + omitted;
  return hidden > 0 ? `${shown} +${hidden} more` : shown;
}
