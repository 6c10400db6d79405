import { lstat, realpath, stat } from 'node:fs/promises';
import path from 'node:path';
import { suggestCall } from '../../workflows/tools/suggest-call';
import type { ToolOutcome } from '../../workflows/tools/tool-outcome';
import type { Stats } from 'node:fs';
import { failure, isSystemError, missingPathOutcome } from './tool-outcomes';

/** A path confined to the workspace. */
export interface WorkspacePath {
  /** Where to do I/O: the symlink-resolved existing prefix plus the not-yet-existing rest. */
  readonly absolute: string;
  /** Normalized workspace-relative form, with "/" separators; "." for the root. */
  readonly relative: string;
}

export type WorkspacePathResolution =
  { readonly ok: true; readonly path: WorkspacePath } | { readonly ok: false; readonly outcome: ToolOutcome };

/**
 * Resolves a path the model gave against the workspace, refusing anything that would reach
 * outside it: ".." escapes, absolute paths (with the relative form suggested when it lies inside),
 * and symbolic links anywhere along the path that resolve outside. The path need not exist yet,
 * so write_file can create files; only its longest existing prefix is resolved.
 */
export async function resolveWorkspacePath(options: {
  workspace: string;
  path: string;
  toolName: string;
}): Promise<WorkspacePathResolution> {
  const { toolName } = options;
  const root = await realpath(options.workspace);
  const requested = options.path === '' ? '.' : options.path;
  if (requested.includes('\0')) return refuse(`The path contains a NUL character.`, [listRoot()]);

  if (path.isAbsolute(requested)) {
    const inside = [root, path.resolve(options.workspace)]
      .map((base) => path.relative(base, path.normalize(requested)))
      .find((relative) => !escapes(relative));
    if (inside !== undefined) {
      const relative = toPosix(inside) || '.';
      return refuse(
        `Absolute paths are not accepted; "${requested}" is "${relative}" relative to the workspace root.`,
        [
          `Call ${toolName} again with path "${relative}" (paths are relative to the workspace root)`,
          suggestCall('list_dir', { path: path.posix.dirname(relative) }),
        ],
      );
    }
    return refuse(`"${requested}" is outside the workspace; ${toolName} only works inside it.`, [
      `${listRoot()} — see what the workspace contains and use a relative path`,
      'If you need something outside the workspace, ask the user to copy it in',
    ]);
  }

  const target = path.resolve(root, requested);
  const relative = path.relative(root, target);
  if (escapes(relative)) {
    return refuse(
      `"${requested}" leads outside the workspace (through ".."); ${toolName} only works inside it.`,
      [
        `${listRoot()} — see what the workspace contains and use a path inside it`,
        'If you need something outside the workspace, ask the user to copy it in',
      ],
    );
  }

  const existing = await longestExistingPrefix(target, root);
  let resolvedPrefix: string;
  try {
    resolvedPrefix = await realpath(existing);
  } catch {
    // lstat found it but realpath cannot follow it: a dangling or looping symbolic link.
    return refuse(
      `"${toPosix(path.relative(root, existing))}" is a symbolic link whose target does not exist.`,
      [
        suggestCall('list_dir', { path: toPosix(path.relative(root, path.dirname(existing))) || '.' }),
        `${suggestCall('run_command', { command: `ls -l ${toPosix(path.relative(root, existing)) || '.'}` })} — see where the link points`,
      ],
    );
  }
  if (escapes(path.relative(root, resolvedPrefix))) {
    const through = toPosix(path.relative(root, existing)) || '.';
    return refuse(
      `"${requested}" goes through a symbolic link ("${through}") that points outside the workspace.`,
      [
        `${suggestCall('list_dir', { path: toPosix(path.dirname(relative)) || '.' })} — find a path that stays inside`,
        'If you need what the link points to, ask the user to copy it into the workspace',
      ],
    );
  }
  return {
    ok: true,
    path: {
      absolute: path.join(resolvedPrefix, path.relative(existing, target)),
      relative: toPosix(relative) || '.',
    },
  };
}

/** The nearest directory at or above a workspace-relative path that exists (for candidates). */
export async function nearestExistingDirectory(options: {
  workspace: string;
  relative: string;
}): Promise<string> {
  let current = path.posix.normalize(options.relative);
  for (;;) {
    current = current === '.' || current === '' ? '.' : path.posix.dirname(current);
    try {
      if ((await stat(path.join(options.workspace, current))).isDirectory()) return current;
    } catch {
      // keep walking up
    }
    if (current === '.') return '.';
  }
}

function refuse(content: string, candidates: string[]): WorkspacePathResolution {
  return { ok: false, outcome: failure({ content, candidates }) };
}

function listRoot(): string {
  return suggestCall('list_dir', { path: '.' });
}

/** Whether a path relative to a root (path.relative) leads outside it. */
export function escapes(relative: string): boolean {
  return relative === '..' || relative.startsWith(`..${path.sep}`) || path.isAbsolute(relative);
}

export function toPosix(relative: string): string {
  return relative.split(path.sep).join('/');
}

/** The deepest ancestor-or-self of target that exists (as an entry: a dangling link counts). */
async function longestExistingPrefix(target: string, root: string): Promise<string> {
  let current = target;
  while (current !== root) {
    try {
      await lstat(current);
      return current;
    } catch {
      current = path.dirname(current);
    }
  }
  return root;
}

export type ExistingWorkspacePath =
  | { readonly ok: true; readonly path: WorkspacePath; readonly info: Stats }
  | { readonly ok: false; readonly outcome: ToolOutcome };

/**
 * resolveWorkspacePath for a path that must already exist: a missing one becomes the tool's
 * "not found" outcome, with the nearest existing directory as a candidate to list.
 */
export async function statWorkspacePath(options: {
  workspace: string;
  path: string;
  toolName: string;
  kind?: 'file' | 'directory';
}): Promise<ExistingWorkspacePath> {
  const resolution = await resolveWorkspacePath(options);
  if (!resolution.ok) return resolution;
  const { absolute, relative } = resolution.path;
  try {
    // stat before any open: opening a FIFO for reading would block until something writes to it.
    return { ok: true, path: resolution.path, info: await stat(absolute) };
  } catch (error) {
    if (isSystemError(error) && (error.code === 'ENOENT' || error.code === 'ENOTDIR')) {
      const nearestDirectory = await nearestExistingDirectory({ workspace: options.workspace, relative });
      return {
        ok: false,
        outcome: missingPathOutcome({
          relative,
          nearestDirectory,
          ...(options.kind ? { kind: options.kind } : {}),
        }),
      };
    }
    throw error;
  }
}
