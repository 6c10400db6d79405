import { realpath } from 'node:fs/promises';
import path from 'node:path';
import { escapes } from '../tools/workspace';

/**
 * The path with every symbolic link resolved, as far as it exists: a missing workspace under a
 * linked directory is judged by where it would be created, and "/roots/../etc" is "/etc".
 *
 * At most two rounds of file-system requests, whatever the depth (issue 41): each request waits
 * behind all the file work queued in libuv's thread pool (4 threads), so on a busy worker a chain
 * of one request per missing parent took seconds each, and a probe tens of seconds.
 */
export async function resolvedPath(target: string): Promise<string> {
  const absolute = path.resolve(target);
  const whole = await realpath(absolute).catch(() => undefined);
  if (whole !== undefined) return whole;
  const ancestors: string[] = [];
  for (let parent = path.dirname(absolute); ; parent = path.dirname(parent)) {
    ancestors.push(parent);
    if (path.dirname(parent) === parent) break;
  }
  const resolved = await Promise.all(ancestors.map((ancestor) => realpath(ancestor).catch(() => undefined)));
  // The deepest ancestor that exists, with the rest of the path as written below it.
  for (const [index, ancestor] of ancestors.entries()) {
    const real = resolved[index];
    if (real !== undefined) return path.join(real, path.relative(ancestor, absolute));
  }
  return absolute;
}

/** The path (resolved) under the first of the roots (resolved) that holds it; undefined outside them all. */
export function relativeUnderRoots(resolved: string, resolvedRoots: readonly string[]): string | undefined {
  for (const root of resolvedRoots) {
    const relative = path.relative(root, resolved);
    if (!escapes(relative)) return relative;
  }
  return undefined;
}

/** Whether `target` is one of the roots or lies under one (both sides resolved). No roots: any path. */
export async function isUnderRoots(target: string, roots: readonly string[]): Promise<boolean> {
  if (roots.length === 0) return true;
  const [resolved, resolvedRoots] = await Promise.all([
    resolvedPath(target),
    Promise.all(roots.map(resolvedPath)),
  ]);
  return relativeUnderRoots(resolved, resolvedRoots) !== undefined;
}
