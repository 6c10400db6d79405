/**
 * What a call may change in the workspace without a human, judged from what it actually changed
 * (a command's copy-on-write layer, or the path a file tool is about to write), not from what its
 * text looked like. Pure: the worker applies it, tests pin it down, docs/approvals-and-security.md quotes it.
 *
 * A call no human approved may create and modify ordinary files and directories. It may not:
 * - delete or replace anything that existed before it ran (rm, mv, a directory turned into a
 *   file): a deletion is the one change a human must see before it reaches the workspace;
 * - touch what makes git run programs: `.git/config`, `.git/hooks/…`, a `.git` file or link
 *   pointing elsewhere — anything under a `.git` directory but git's own bookkeeping. Whoever runs
 *   `git status` in the workspace later (the user, on their own machine) would run what it names;
 * - leave a FIFO, socket or device behind: they block or redirect the next program that opens them.
 */

export type ChangedEntryType = 'file' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'device' | 'other';

export interface WorkspaceChange {
  /** Workspace-relative, "/" separated. */
  readonly path: string;
  readonly change: 'created' | 'modified' | 'deleted';
  /** What is there after the call (for a deletion: what was there before). */
  readonly type: ChangedEntryType;
}

export interface ChangeRefusal {
  readonly path: string;
  readonly reason: string;
}

/**
 * Entries under `.git/` that git itself writes in ordinary work (add, commit, checkout, fetch):
 * none of them names a program git would run. Everything else there (config, hooks, info/,
 * modules/, worktrees/, rebase and sequencer plans) can.
 */
const GIT_BOOKKEEPING_FILES: ReadonlySet<string> = new Set([
  'index',
  'HEAD',
  'ORIG_HEAD',
  'FETCH_HEAD',
  'COMMIT_EDITMSG',
  'packed-refs',
  'AUTO_MERGE',
  'MERGE_HEAD',
  'MERGE_MSG',
  'MERGE_MODE',
  'CHERRY_PICK_HEAD',
  'REVERT_HEAD',
]);
const GIT_BOOKKEEPING_DIRECTORIES: ReadonlySet<string> = new Set(['objects', 'refs', 'logs']);

/** Why writing this path needs a human whatever the call's tier, or undefined when it does not. */
export function protectedPathReason(path: string, type: ChangedEntryType = 'file'): string | undefined {
  const segments = path.split('/');
  const gitAt = segments.indexOf('.git');
  if (gitAt < 0) return undefined;
  const inside = segments.slice(gitAt + 1);
  if (inside.length === 0) {
    return type === 'directory'
      ? undefined
      : `${path} would no longer be git's own directory: a .git file or link makes git read a configuration from elsewhere`;
  }
  const [first = '', ...rest] = inside;
  if (GIT_BOOKKEEPING_DIRECTORIES.has(first)) return undefined;
  if (rest.length === 0 && (GIT_BOOKKEEPING_FILES.has(first) || first.endsWith('.lock'))) return undefined;
  return `${path} is part of git's configuration, hooks or plans (only objects, refs, logs, index and HEAD-like files are ordinary bookkeeping), and git runs programs they name`;
}

/** The changes a call no human approved may not make, each with why. Empty: all may be kept. */
export function changesNeedingApproval(changes: readonly WorkspaceChange[]): ChangeRefusal[] {
  const refusals: ChangeRefusal[] = [];
  for (const change of changes) {
    const reason = whyNeedsApproval(change);
    if (reason !== undefined) refusals.push({ path: change.path, reason });
  }
  return refusals;
}

function whyNeedsApproval(change: WorkspaceChange): string | undefined {
  if (change.change === 'deleted') return `deletes ${change.path}, which existed before the call`;
  if (['fifo', 'socket', 'device', 'other'].includes(change.type))
    return `leaves a ${change.type} at ${change.path}; only files, directories and links are kept`;
  return protectedPathReason(change.path, change.type);
}

/** For the model: the first few refusals in full, one a line. */
export function describeRefusals(refusals: readonly ChangeRefusal[], shown = 5): string {
  const lines = refusals.slice(0, shown).map((refusal) => `- ${refusal.reason}`);
  if (refusals.length > shown) lines.push(`- … and ${refusals.length - shown} more`);
  return lines.join('\n');
}

/** For the approval request and the ledger: the same on one line (every path is listed beside it). */
export function refusalsInOneLine(refusals: readonly ChangeRefusal[], shown = 3): string {
  const first = refusals.slice(0, shown).map((refusal) => refusal.reason);
  return [...first, ...(refusals.length > shown ? [`and ${refusals.length - shown} more`] : [])].join('; ');
}
