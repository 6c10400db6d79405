/**
 * What the parent's model is told of a child's copy when the child ended (issue 47, workspace
 * "copy"): the changes that came into its workspace, and the overlaps it has to resolve itself,
 * with the diff from its version to the child's. Pure; the merge itself runs on the host
 * (activities/delegation/merge-copy.ts), whose outcome this reads by its shape.
 */

export interface MergeOutcomeShape {
  applied: ReadonlyArray<{ path: string; change: string }>;
  appliedCount: number;
  overlaps: ReadonlyArray<{ path: string; change: string }>;
  notMerged: ReadonlyArray<{ path: string; why: string }>;
  overlapDiff?: string;
}

export type CopyEnding =
  | { kind: 'merged'; outcome: MergeOutcomeShape }
  /** The child did not complete: what it changed in its copy is dropped, not merged. */
  | { kind: 'discarded' }
  /** The merge could not run (the copy is gone from the host, …): nothing of it was applied. */
  | { kind: 'unmerged'; why: string };

const PATHS_SHOWN = 20;

function pathList(paths: ReadonlyArray<{ path: string; change: string }>, total = paths.length): string {
  const shown = paths.slice(0, PATHS_SHOWN).map(({ path, change }) => `${path} (${change})`);
  const more = total - shown.length;
  return `${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}`;
}

export function copyEndingText(ending: CopyEnding): string {
  if (ending.kind === 'discarded')
    return 'It did not complete, so the changes in its copy of the workspace were discarded: your workspace has none of them.';
  if (ending.kind === 'unmerged')
    return `Its changes could not be brought into your workspace (${ending.why}): your workspace has none of them.`;
  const { outcome } = ending;
  const lines: string[] = [];
  lines.push(
    outcome.appliedCount === 0
      ? 'It changed no file in its copy of the workspace that came back to yours.'
      : `Its changes now in your workspace: ${pathList(outcome.applied, outcome.appliedCount)}.`,
  );
  if (outcome.overlaps.length > 0) {
    lines.push(
      `Not applied, because the same files changed in your workspace since it started (yours were kept): ${pathList(outcome.overlaps)}. Resolve them yourself; the diff from your version to the child's:`,
    );
    if (outcome.overlapDiff) lines.push(outcome.overlapDiff);
  }
  if (outcome.notMerged.length > 0) {
    const shown = outcome.notMerged.slice(0, PATHS_SHOWN).map(({ path, why }) => `${path}: ${why}`);
    lines.push(`Not carried back: ${shown.join('; ')}.`);
  }
  return lines.join('\n');
}

/** The ledger's details of a copy's ending: counts and the overlapping paths. */
export function copyEndingDetails(ending: CopyEnding): Record<string, unknown> {
  if (ending.kind !== 'merged') return { copy: ending.kind };
  return {
    copy: 'merged',
    applied: ending.outcome.appliedCount,
    overlaps: ending.outcome.overlaps.map(({ path }) => path),
    notMerged: ending.outcome.notMerged.length,
  };
}

/** What a child on the shared workspace changed there, as its goal recorded it (hosts/workspace-writes.ts). */
export interface WritesShape {
  paths: readonly string[];
  omitted: number;
  unreported: readonly string[];
}

/** "It changed in your workspace: a.txt, b.txt, and 3 more." and the calls that did not say. */
export function sharedWritesText(writes: WritesShape | undefined): string {
  if (
    writes === undefined ||
    (writes.paths.length === 0 && writes.omitted === 0 && writes.unreported.length === 0)
  )
    return 'It changed nothing in your workspace.';
  const lines: string[] = [];
  if (writes.paths.length > 0 || writes.omitted > 0) {
    const shown = writes.paths.slice(0, PATHS_SHOWN);
    const more = writes.paths.length - shown.length + writes.omitted;
    const list =
      shown.length === 0 ? `${more} paths` : `${shown.join(', ')}${more > 0 ? `, and ${more} more` : ''}`;
    lines.push(`It changed in your workspace: ${list}.`);
  }
  if (writes.unreported.length > 0)
    lines.push(
      `Calls that may have changed it without saying what: ${writes.unreported.slice(0, PATHS_SHOWN).join('; ')}.`,
    );
  return lines.join('\n');
}
