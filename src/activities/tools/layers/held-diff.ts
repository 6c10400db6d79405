import { lstat, readdir } from 'node:fs/promises';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { readRegularFile } from '../workspace-access/open-beneath';
import type { LayerOperation } from './layer-operations';

/**
 * The changes a held layer would make, as a unified diff for the approver (issue 46): the change
 * list names what changes, the diff shows how. Read from the layer's upper directory (what the
 * command left) against the workspace (what is there now), once, when the call is held; kept with
 * the hold, so the inbox shows it without reaching the host. Cut short: a goal's history and an
 * approver's page hold a few screens, not a build's output.
 */

/** The whole diff, at most (history keeps it with the call). */
export const HELD_DIFF_MAX_CHARS = 32 * 1024;
/** A file larger than this on either side is named, not shown. */
const FILE_SHOWN_MAX_BYTES = 256 * 1024;
/** A file with a NUL byte in its first bytes is binary: named, not shown. */
const BINARY_SNIFF_BYTES = 8 * 1024;

export type Side = { kind: 'absent' } | { kind: 'text'; text: string } | { kind: 'other'; what: string };
export const ABSENT: Side = { kind: 'absent' };
const DIRECTORY = 'a directory';

function isDirectory(side: Side): boolean {
  return side.kind === 'other' && side.what === DIRECTORY;
}

export async function heldDiff(options: {
  operations: readonly LayerOperation[];
  /** The layer's upper directory: the command's new and changed entries. */
  upper: string;
  workspace: string;
}): Promise<string | undefined> {
  const diff = new BoundedDiff(HELD_DIFF_MAX_CHARS);
  const removed = new Set(options.operations.filter((op) => op.op === 'remove').map((op) => op.path));
  const moved = new Set(options.operations.filter((op) => op.op === 'move').map((op) => op.path));
  for (const relative of [...new Set([...removed, ...moved])].sort()) {
    if (diff.full) {
      diff.skip();
      continue;
    }
    let before = await sideOf(path.join(options.workspace, relative));
    const after = moved.has(relative) ? await sideOf(path.join(options.upper, relative)) : ABSENT;
    if (isDirectory(before)) {
      // A directory removed (or replaced by a file): each file in it goes.
      for await (const file of filesUnder(options.workspace, relative, diff))
        diff.add(patchOf(file, await sideOf(path.join(options.workspace, file)), ABSENT));
      before = ABSENT;
    }
    if (isDirectory(after)) {
      // A new directory moves in whole: each file in it is a new file.
      for await (const file of filesUnder(options.upper, relative, diff))
        diff.add(patchOf(file, ABSENT, await sideOf(path.join(options.upper, file))));
      continue;
    }
    diff.add(patchOf(relative, before, after));
  }
  return diff.text();
}

/** Text with a budget: a patch that does not fit is left out and counted. */
export class BoundedDiff {
  private readonly parts: string[] = [];
  private used = 0;
  private left = 0;
  full = false;

  constructor(private readonly maxChars: number) {}

  add(patch: string): void {
    if (patch === '') return;
    if (this.full || this.used + patch.length > this.maxChars) {
      this.skip();
      return;
    }
    this.parts.push(patch);
    this.used += patch.length;
  }

  skip(): void {
    this.full = true;
    this.left += 1;
  }

  text(): string | undefined {
    if (this.parts.length === 0 && this.left === 0) return undefined;
    const cut =
      this.left === 0
        ? []
        : [`… ${this.left} more changed path(s) not shown: the diff is cut at ${this.maxChars} characters`];
    return [...this.parts, ...cut].join('');
  }
}

export function patchOf(relative: string, before: Side, after: Side): string {
  const inWords = `${relative}: ${sideWords(before)} → ${sideWords(after)}\n`;
  // Text against text or nothing is diffed; anything else (a link, a binary, a directory) is named.
  if (
    before.kind === 'other' ||
    after.kind === 'other' ||
    (before.kind === 'absent' && after.kind === 'absent')
  )
    return inWords;
  const oldText = before.kind === 'text' ? before.text : '';
  const newText = after.kind === 'text' ? after.text : '';
  // A mode or owner change shows nothing; an empty file made or removed is said in words.
  if (oldText === newText) return before.kind === after.kind ? '' : inWords;
  // jsdiff opens each patch with a rule of '=' signs: the --- / +++ lines say enough.
  return createTwoFilesPatch(
    before.kind === 'absent' ? '/dev/null' : `a/${relative}`,
    after.kind === 'absent' ? '/dev/null' : `b/${relative}`,
    oldText,
    newText,
    undefined,
    undefined,
    { context: 3 },
  ).replace(/^=+\n/, '');
}

function sideWords(side: Side): string {
  if (side.kind === 'absent') return 'nothing';
  if (side.kind === 'text') return side.text === '' ? 'an empty file' : 'a text file';
  return side.what;
}

/** What is at a path, read without following a link; text only when it is small and not binary. */
export async function sideOf(entry: string): Promise<Side> {
  const info = await lstat(entry).catch(() => undefined);
  if (info === undefined) return { kind: 'absent' };
  if (info.isDirectory()) return { kind: 'other', what: DIRECTORY };
  if (info.isSymbolicLink()) return { kind: 'other', what: 'a symbolic link' };
  if (!info.isFile()) return { kind: 'other', what: 'a special file' };
  if (info.size > FILE_SHOWN_MAX_BYTES)
    return { kind: 'other', what: `a file of ${info.size} bytes (not shown)` };
  const content = await readRegularFile(entry, FILE_SHOWN_MAX_BYTES).catch(() => undefined);
  if (content === undefined) return { kind: 'other', what: 'a file keel could not read' };
  if (content.subarray(0, BINARY_SNIFF_BYTES).includes(0))
    return { kind: 'other', what: `a binary file of ${content.length} bytes` };
  return { kind: 'text', text: content.toString('utf8') };
}

/** The files under a directory, relative to the workspace, in order, until the diff is full. */
async function* filesUnder(root: string, relative: string, diff: BoundedDiff): AsyncGenerator<string> {
  const entries = await readdir(path.join(root, relative), { withFileTypes: true }).catch(() => []);
  for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
    if (diff.full) {
      diff.skip();
      return;
    }
    const child = path.join(relative, entry.name);
    if (entry.isDirectory()) yield* filesUnder(root, child, diff);
    else yield child;
  }
}
