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
 * - the same wherever git would find a repository without any `.git` in its path: a directory
 *   holding HEAD beside objects/, refs/ or commondir (git takes it for a bare repository or a
 *   worktree's git directory), or config beside objects/ and refs/ (a repository's common
 *   directory). Making one is refused outright; inside one only the bookkeeping may change.
 *   `.gitmodules` is guarded too: `git submodule` reads it and clones what it names, and so is a
 *   workspace file a repository's config includes (include.path): git reads it as config;
 * - leave a FIFO, socket or device behind: they block or redirect the next program that opens them.
 *
 * Privileges are never granted, and need no human because they are never kept
 * (`privilegesToApply`): a layer's entries reach the workspace without setuid, setgid or sticky
 * bits unless the same entry had them before with the same content, and owned as before (or by
 * the worker, for what is new), whatever the command did with chmod or chown in its layer.
 */

export type ChangedEntryType = 'file' | 'directory' | 'symlink' | 'fifo' | 'socket' | 'device' | 'other';

export interface WorkspaceChange {
  /** Workspace-relative, "/" separated. */
  readonly path: string;
  readonly change: 'created' | 'modified' | 'deleted';
  /** What is there after the call (for a deletion: what was there before). */
  readonly type: ChangedEntryType;
}

/**
 * Which of the names git looks for (GIT_DIRECTORY_NAMES) a directory of the workspace held before
 * the call and holds after it: a layer's changes are judged as a set, so "HEAD, objects/ and refs/
 * made in one directory", or HEAD added beside an objects/ and refs/ that were already there,
 * is a repository made, though each change alone is an ordinary file. Keyed by the directory's
 * workspace-relative path ('' for the root).
 */
export interface DirectoryHolding {
  readonly before: readonly string[];
  readonly after: readonly string[];
}
export type DirectoryHoldings = ReadonlyMap<string, DirectoryHolding>;

/** What the worker read of the workspace's git setup, for the rules a path alone cannot decide. */
export interface GitSurroundings {
  /** The directories a call touched: which of GIT_DIRECTORY_NAMES they held before and after. */
  readonly holdings?: DirectoryHoldings;
  /**
   * Workspace files a repository's config includes (include.path, includeIf.*.path): git reads
   * them as its own configuration, so writing one is writing .git/config.
   */
  readonly includedConfigs?: ReadonlySet<string>;
}

/** The entries of a directory that tell git it is one of its own (setup.c, is_git_directory). */
export const GIT_DIRECTORY_NAMES: ReadonlySet<string> = new Set([
  'HEAD',
  'objects',
  'refs',
  'commondir',
  'config',
]);

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
  if (segments.at(-1) === '.gitmodules')
    return `${path} names the submodules git clones and checks out, with the URLs and paths it uses`;
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

/**
 * Whether git would take a directory holding these names for a git directory: HEAD with its
 * object store and refs, or with a commondir naming where they are (a worktree's); or config with
 * objects and refs (the common directory a worktree names, whose config git reads). Types are not
 * checked: a file named objects is as suspicious as a directory, and costs only an approval.
 */
export function looksLikeGitDirectory(names: readonly string[]): boolean {
  const has = (name: string): boolean => names.includes(name);
  return gitFindsRepository(names) || (has('config') && has('objects') && has('refs'));
}

/**
 * Whether git, looking for a repository from inside or below this directory, would stop here:
 * it needs HEAD (and then objects and refs, or a commondir naming where they are). A common
 * directory without HEAD is read only through a worktree that names it; HEAD added to one makes
 * it a repository git finds on its own.
 */
export function gitFindsRepository(names: readonly string[]): boolean {
  return names.includes('HEAD') && ['commondir', 'objects', 'refs'].some((name) => names.includes(name));
}

/**
 * Why a change inside a directory git would take for a repository (no `.git` in the path) needs
 * a human: it makes one (the directory did not look like one before), or it changes one beyond
 * git's bookkeeping. Checks every directory above the path, nearest first.
 */
export function gitDirectoryReason(path: string, holdings: DirectoryHoldings): string | undefined {
  const segments = path.split('/');
  for (let depth = segments.length - 1; depth >= 0; depth -= 1) {
    const directory = segments.slice(0, depth).join('/');
    const holding = holdings.get(directory);
    if (holding === undefined || !looksLikeGitDirectory(holding.after)) continue;
    const shown = directory === '' ? 'the workspace root' : directory;
    const made =
      !looksLikeGitDirectory(holding.before) ||
      (gitFindsRepository(holding.after) && !gitFindsRepository(holding.before));
    if (made)
      return `${path} makes ${shown} a directory git takes for a repository (HEAD beside objects/, refs/ or commondir, or config beside objects/ and refs/), and git runs programs its config names`;
    const inside = protectedPathReason(['.git', ...segments.slice(depth)].join('/'));
    if (inside !== undefined)
      return `${path} is part of the configuration, hooks or plans of ${shown}, which git takes for a repository, and git runs programs they name`;
  }
  return undefined;
}

/**
 * Why writing this path needs a human given what the worker read around it (a repository made or
 * changed without `.git` in the path, a file a config includes), or undefined.
 */
export function gitSurroundingsReason(path: string, surroundings: GitSurroundings): string | undefined {
  if (surroundings.includedConfigs?.has(path) === true)
    return `${path} is included by a repository's config (include.path), so git reads it as its own configuration and runs programs it names`;
  return gitDirectoryReason(path, surroundings.holdings ?? new Map());
}

/** The changes a call no human approved may not make, each with why. Empty: all may be kept. */
export function changesNeedingApproval(
  changes: readonly WorkspaceChange[],
  surroundings: GitSurroundings = {},
): ChangeRefusal[] {
  const refusals: ChangeRefusal[] = [];
  for (const change of changes) {
    const reason = whyNeedsApproval(change, surroundings);
    if (reason !== undefined) refusals.push({ path: change.path, reason });
  }
  return refusals;
}

function whyNeedsApproval(change: WorkspaceChange, surroundings: GitSurroundings): string | undefined {
  if (change.change === 'deleted') return `deletes ${change.path}, which existed before the call`;
  if (['fifo', 'socket', 'device', 'other'].includes(change.type))
    return `leaves a ${change.type} at ${change.path}; only files, directories and links are kept`;
  return protectedPathReason(change.path, change.type) ?? gitSurroundingsReason(change.path, surroundings);
}

/** setuid, setgid and sticky: the mode bits that grant more than reading, writing and running. */
export const PRIVILEGE_BITS = 0o7000;
const PRIVILEGE_BIT_NAMES: readonly (readonly [number, string])[] = [
  [0o4000, 'setuid'],
  [0o2000, 'setgid'],
  [0o1000, 'sticky'],
];

export interface EntryOwnership {
  /** The whole st_mode or just its permission bits: only the low twelve bits are read. */
  readonly mode: number;
  readonly uid: number;
  readonly gid: number;
}

/**
 * The mode and owner a layer's entry reaches the workspace with. The command ran as root in its
 * sandbox, so it could chmod 4755 or chown anything in its layer; applying that would hand the
 * host a root-owned setuid program (issue 43). So: permission bits as the command left them;
 * setuid, setgid and sticky only those the same entry already had with the same content (a
 * program the user installed setuid stays so when a call merely touches or chmods it; new
 * content loses them, as the kernel clears them on a write); the owner the entry had before, or
 * the worker's own for what is new. Nothing to approve: nothing is granted. Each removed bit is
 * reported, so the model knows why its chmod did not stick.
 */
export function privilegesToApply(options: {
  path: string;
  layer: EntryOwnership;
  /** The workspace's entry at the path before the call, when it was the same kind of entry. */
  before?: EntryOwnership & { readonly sameContent: boolean };
  worker: { readonly uid: number; readonly gid: number };
}): EntryOwnership & { notes: string[] } {
  const { layer, before } = options;
  const kept = before?.sameContent === true ? before.mode & PRIVILEGE_BITS : 0;
  const mode = (layer.mode & 0o777) | (layer.mode & kept);
  const owner = before ?? options.worker;
  const notes = PRIVILEGE_BIT_NAMES.filter(([bit]) => (layer.mode & bit & ~kept) !== 0).map(
    ([, name]) => `${name} bit removed from ${options.path}`,
  );
  if (layer.uid !== owner.uid || layer.gid !== owner.gid)
    notes.push(
      `${options.path} kept owned by ${owner.uid}:${owner.gid}, not ${layer.uid}:${layer.gid} as the command left it`,
    );
  return { mode, uid: owner.uid, gid: owner.gid, notes };
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
