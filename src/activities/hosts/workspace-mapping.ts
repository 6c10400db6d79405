import path from 'node:path';
import { escapes } from '../tools/workspace';
import { relativeUnderRoots, resolvedPath } from './workspace-roots';

/**
 * A goal's workspace is a directory under one of its host's workspace roots. When the goal moves
 * to a host whose roots differ, the workspace is the same path relative to a root of the new
 * host: `/srv/a/app` under root `/srv/a` is `/mnt/b/app` on a host with root `/mnt/b`. Each root
 * of the new host is tried in the order the host lists them; the first that holds the workspace
 * wins, and when none does the first is where it would be recreated (docs/several-machines.md).
 */

/** The workspace's path under the root that holds it; undefined without roots or outside them. */
export async function pathUnderRoots(
  workspace: string,
  roots: readonly string[],
): Promise<string | undefined> {
  const [resolved, resolvedRoots] = await Promise.all([
    resolvedPath(workspace),
    Promise.all(roots.map(resolvedPath)),
  ]);
  return relativeUnderRoots(resolved, resolvedRoots);
}

/** Where the workspace would be on a host with `roots`, in the order to try; none for an unsafe path. */
export function workspaceCandidates(relative: string, roots: readonly string[]): string[] {
  // Only a plain path below the root: nothing that climbs out or takes a detour ("a/../b").
  if (escapes(relative) || (relative !== '' && path.normalize(relative) !== relative)) return [];
  return roots.map((root) => path.join(root, relative));
}
