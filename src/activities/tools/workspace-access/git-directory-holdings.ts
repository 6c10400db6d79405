import {
  GIT_DIRECTORY_NAMES,
  type DirectoryHolding,
  type DirectoryHoldings,
} from '../../../workflows/tools/workspace-change-policy';
import { lstatBeneath } from './open-beneath';

/**
 * What the change policy needs to judge one file written by write_file or edit_file the way it
 * judges a layer (gitDirectoryReason): for every directory above the file, which of git's names
 * it holds now, and would hold once the file is written. Read without following links, like the
 * write itself; an entry that cannot be read counts as absent (the write then refuses the path).
 *
 * Every segment of the path is a name the write may add at its depth, not only the file's own:
 * the write creates the missing directories on the way (openFileBeneath), so writing
 * `r/refs/heads/main` adds `refs/` to `r` as surely as writing `r/refs` would, and a repository
 * assembled one write at a time (config, HEAD, then refs/ and objects/ by files inside them)
 * is seen by the call that completes it.
 */
export async function holdingsAbove(
  workspace: string,
  segments: readonly string[],
): Promise<DirectoryHoldings> {
  const holdings = new Map<string, DirectoryHolding>();
  for (let depth = 0; depth < segments.length; depth += 1) {
    const directory = segments.slice(0, depth);
    const before: string[] = [];
    for (const candidate of GIT_DIRECTORY_NAMES) {
      if (await exists(workspace, [...directory, candidate])) before.push(candidate);
    }
    const name = segments[depth] ?? '';
    const added = GIT_DIRECTORY_NAMES.has(name) && !before.includes(name);
    holdings.set(directory.join('/'), { before, after: added ? [...before, name] : before });
  }
  return holdings;
}

async function exists(workspace: string, segments: readonly string[]): Promise<boolean> {
  try {
    await lstatBeneath(workspace, segments);
    return true;
  } catch {
    return false;
  }
}
