import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { escapes } from '../tools/workspace';

/**
 * The path with every symbolic link resolved, as far as it exists: a missing workspace under a
 * linked directory is judged by where it would be created, and "/roots/../etc" is "/etc".
 */
export async function resolvedPath(target: string): Promise<string> {
  const absolute = path.resolve(target);
  try {
    return await realpath(absolute);
  } catch {
    const parent = path.dirname(absolute);
    if (parent === absolute) return absolute;
    return path.join(await resolvedPath(parent), path.basename(absolute));
  }
}

/** Whether `target` is one of the roots or lies under one (both sides resolved). No roots: any path. */
export async function isUnderRoots(target: string, roots: readonly string[]): Promise<boolean> {
  if (roots.length === 0) return true;
  const resolved = await resolvedPath(target);
  for (const root of roots) {
    if (!escapes(path.relative(await resolvedPath(root), resolved))) return true;
  }
  return false;
}
