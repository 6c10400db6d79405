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
 */
export async function holdingsAbove(
  workspace: string,
  segments: readonly string[],
): Promise<DirectoryHoldings> {
  const holdings = new Map<string, DirectoryHolding>();
  const name = segments.at(-1) ?? '';
  for (let depth = 0; depth < segments.length; depth += 1) {
    const directory = segments.slice(0, depth);
    const before: string[] = [];
    for (const candidate of GIT_DIRECTORY_NAMES) {
      if (await exists(workspace, [...directory, candidate])) before.push(candidate);
    }
    const written = depth === segments.length - 1 && GIT_DIRECTORY_NAMES.has(name) && !before.includes(name);
    holdings.set(directory.join('/'), { before, after: written ? [...before, name] : before });
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
