import path from 'node:path';
import { suggestCall } from '../../workflows/tools/suggest-call';
import type { ToolOutcome, WorkspaceEffects } from '../../workflows/tools/tool-outcome';

type Facts = ToolOutcome['facts'];

export function success(options: {
  content: string;
  facts?: Facts;
  effects?: WorkspaceEffects;
}): ToolOutcome {
  return {
    ok: true,
    content: options.content,
    candidates: [],
    facts: options.facts ?? {},
    ...(options.effects === undefined ? {} : { effects: options.effects }),
  };
}

export function failure(options: {
  content: string;
  candidates: readonly string[];
  facts?: Facts;
  effects?: WorkspaceEffects;
}): ToolOutcome {
  return {
    ok: false,
    content: options.content,
    candidates: [...options.candidates],
    facts: options.facts ?? {},
    ...(options.effects === undefined ? {} : { effects: options.effects }),
  };
}

/**
 * A call that needs a human after all (see Escalation): the model reads `content` only if the
 * approval is denied or times out; the workflow asks for the approval with `reason`.
 */
export function escalation(options: {
  content: string;
  reason: string;
  held?: { changes: WorkspaceEffects; diff?: string };
  facts?: Facts;
}): ToolOutcome {
  return {
    ok: false,
    content: options.content,
    candidates: [],
    facts: options.facts ?? {},
    escalation: {
      reason: options.reason,
      ...(options.held === undefined ? {} : { held: options.held }),
    },
  };
}

/** Escapes text for use as a literal inside a regular expression (for search candidates). */
export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Single-quotes an argument for /bin/sh. */
export function quoteShell(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/**
 * A path that does not exist: look at the nearest directory that does, and look for the name
 * (by file name, and by references to it in file contents).
 */
export function missingPathOutcome(options: {
  relative: string;
  nearestDirectory: string;
  kind?: string;
}): ToolOutcome {
  const name = path.posix.basename(options.relative);
  return failure({
    content: `No such ${options.kind ?? 'file or directory'}: "${options.relative}" (paths are relative to the workspace root).`,
    candidates: [
      `${suggestCall('list_dir', { path: options.nearestDirectory })} — see what exists there`,
      `${suggestCall('run_command', { command: `find . -name ${quoteShell(name)} -not -path '*/node_modules/*' -not -path '*/.git/*'` })} — look for the file by name`,
      `${suggestCall('search', { pattern: escapeRegExp(name) })} — find references to the name`,
    ],
  });
}

/** Node system errors (EACCES, ENOTDIR, …) carry a string code; anything else is a bug to surface. */
export function isSystemError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  return error instanceof Error && typeof (error as NodeJS.ErrnoException).code === 'string';
}

const SYSTEM_ERROR_HINTS: Readonly<Record<string, string>> = {
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  ENOTDIR: 'a part of the path is a file, not a directory',
  EISDIR: 'the path is a directory',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'the path is too long',
  ENOSPC: 'no space left on the device',
  EROFS: 'the file system is read-only',
};

/** A file-system error turned into something the model can act on. */
export function systemErrorOutcome(options: {
  toolName: string;
  relative: string;
  error: NodeJS.ErrnoException;
}): ToolOutcome {
  const hint = SYSTEM_ERROR_HINTS[options.error.code ?? ''] ?? options.error.message;
  const parent = path.posix.dirname(options.relative);
  return failure({
    content: `${options.toolName} failed on "${options.relative}": ${hint} (${options.error.code ?? 'error'}).`,
    candidates: [
      `${suggestCall('list_dir', { path: parent })} — check what is at that location`,
      `${suggestCall('run_command', { command: `ls -ld ${quoteShell(options.relative)}` })} — check its type and permissions`,
    ],
  });
}
