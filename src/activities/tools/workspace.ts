import { realpath } from 'node:fs/promises';
import path from 'node:path';
import type { Stats } from 'node:fs';
import { suggestCall } from '../../workflows/tools/suggest-call';
import type { ToolOutcome } from '../../workflows/tools/tool-outcome';
import { failure, missingPathOutcome } from './tool-outcomes';
import { BeneathError, lstatBeneath, segmentsOf, type BeneathRefusal } from './workspace-access/open-beneath';

/** A path inside the workspace, checked lexically; every I/O on it goes through open-beneath.ts. */
export interface WorkspacePath {
  /** Normalized workspace-relative form, with "/" separators; "." for the root. */
  readonly relative: string;
  /** The same as segments (empty for the root), for openDirectoryBeneath and friends. */
  readonly segments: readonly string[];
}

export type WorkspacePathResolution =
  { readonly ok: true; readonly path: WorkspacePath } | { readonly ok: false; readonly outcome: ToolOutcome };

/**
 * Resolves a path the model gave against the workspace, lexically: absolute paths are refused
 * (with the relative form suggested when one lies inside) and so is a ".." that leaves the root.
 * Symbolic links are not looked at here: the I/O itself refuses to follow any (open-beneath.ts),
 * because a check made before the I/O can be raced by a parallel command.
 */
export async function resolveWorkspacePath(options: {
  workspace: string;
  path: string;
  toolName: string;
}): Promise<WorkspacePathResolution> {
  const { toolName } = options;
  const requested = options.path === '' ? '.' : options.path;
  if (requested.includes('\0')) return refuse(`The path contains a NUL character.`, [listRoot()]);

  if (path.isAbsolute(requested)) {
    const root = await realpath(options.workspace);
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

  const relative = path.posix.normalize(requested.split(path.sep).join('/'));
  if (relative === '..' || relative.startsWith('../')) {
    return refuse(
      `"${requested}" leads outside the workspace (through ".."); ${toolName} only works inside it.`,
      [
        `${listRoot()} — see what the workspace contains and use a path inside it`,
        'If you need something outside the workspace, ask the user to copy it in',
      ],
    );
  }
  const segments = segmentsOf(relative);
  return { ok: true, path: { relative: segments.join('/') || '.', segments } };
}

/**
 * The outcome for a path the race-free I/O refused: missing (with the nearest existing directory
 * to list), a symbolic link (with where it leads, and the path to use instead when that stays
 * inside), a file where a directory was needed, or a FIFO, socket or device.
 */
export async function refusalOutcome(options: {
  workspace: string;
  relative: string;
  refusal: BeneathRefusal;
  toolName: string;
  kind?: 'file' | 'directory';
}): Promise<ToolOutcome> {
  const { refusal, toolName } = options;
  switch (refusal.kind) {
    case 'missing':
      return missingPathOutcome({
        relative: options.relative,
        nearestDirectory: await nearestExistingDirectory({
          workspace: options.workspace,
          relative: options.relative,
        }),
        ...(options.kind ? { kind: options.kind } : {}),
      });
    case 'symlink':
      return symlinkOutcome(options.workspace, refusal.at, refusal.target, toolName);
    case 'not-a-directory':
      return failure({
        content: `"${refusal.at}" is a file, not a directory, so "${options.relative}" cannot exist.`,
        candidates: [
          suggestCall('list_dir', { path: path.posix.dirname(refusal.at) }),
          `${suggestCall('read_file', { path: refusal.at })} — read the file instead`,
        ],
      });
    case 'not-a-file':
      if (refusal.type === 'directory')
        return failure({
          content: `"${refusal.at}" is a directory; ${toolName} needs a file.`,
          candidates: [
            `${suggestCall('list_dir', { path: refusal.at })} — see what it contains`,
            `Call ${toolName} with a file path inside it`,
          ],
        });
      return failure({
        content: `"${refusal.at}" is a ${refusal.type === 'fifo' ? 'named pipe (FIFO)' : refusal.type}, not a regular file; ${toolName} does not open it (reading or writing one can block or reach a device).`,
        candidates: [
          suggestCall('list_dir', { path: path.posix.dirname(refusal.at) }),
          `${suggestCall('run_command', { command: `ls -l ${refusal.at}` })} — see what it is`,
        ],
      });
  }
}

/**
 * keel's file tools follow no symbolic link (a link can lead out of the workspace, or be swapped
 * between a check and the I/O); the model is told where it leads and, when that is inside, which
 * path to use instead.
 */
function symlinkOutcome(workspace: string, at: string, target: string, toolName: string): ToolOutcome {
  const base = path.posix.dirname(at);
  const lexical = path.isAbsolute(target)
    ? toPosix(path.relative(workspace, target))
    : path.posix.normalize(path.posix.join(base, target));
  const inside = !escapes(lexical) && !lexical.startsWith('../') && lexical !== '..';
  return failure({
    content: `"${at}" is a symbolic link to "${target}"; ${toolName} does not follow symbolic links${inside ? '' : ' (this one leads outside the workspace)'}.`,
    candidates: inside
      ? [
          `Call ${toolName} again with the path the link points to, "${lexical || '.'}"`,
          suggestCall('list_dir', { path: base }),
        ]
      : [
          suggestCall('list_dir', { path: base }),
          'If you need what the link points to, ask the user to copy it into the workspace',
        ],
  });
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
      if ((await lstatBeneath(options.workspace, segmentsOf(current))).isDirectory()) return current;
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

export type ExistingWorkspacePath =
  | { readonly ok: true; readonly path: WorkspacePath; readonly info: Stats }
  | { readonly ok: false; readonly outcome: ToolOutcome };

/**
 * resolveWorkspacePath for a path that must already exist, with what is there (lstat: a link at
 * the end is refused like one on the way). Anything refused becomes the tool's outcome.
 */
export async function statWorkspacePath(options: {
  workspace: string;
  path: string;
  toolName: string;
  kind?: 'file' | 'directory';
}): Promise<ExistingWorkspacePath> {
  const resolution = await resolveWorkspacePath(options);
  if (!resolution.ok) return resolution;
  try {
    const info = await lstatBeneath(options.workspace, resolution.path.segments, { refuseLink: true });
    return { ok: true, path: resolution.path, info };
  } catch (error) {
    return { ok: false, outcome: await outcomeOfRefusal(error, options, resolution.path.relative) };
  }
}

/** A BeneathError as the tool's outcome; any other error is a bug or an I/O failure, thrown on. */
export async function outcomeOfRefusal(
  error: unknown,
  options: { workspace: string; toolName: string; kind?: 'file' | 'directory' },
  relative: string,
): Promise<ToolOutcome> {
  if (!(error instanceof BeneathError)) throw error;
  return refusalOutcome({ ...options, relative, refusal: error.refusal });
}
