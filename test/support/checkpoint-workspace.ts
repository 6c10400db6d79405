import type { TestContext } from 'node:test';
import { createHash } from 'node:crypto';
import {
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { tempDirectory } from './temp-directory';

/** Workspaces for the checkpoint store's tests (checkpoint-store, checkpoint-retention). */

/** A temp folder with a workspace and a store beside it, removed when the test ends. */
export function setup(t: TestContext) {
  const root = tempDirectory('keel-checkpoints-');
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const workspace = path.join(root, 'app');
  mkdirSync(workspace);
  return { root, workspace, store: path.join(root, 'store'), goalId: 'goal-1' };
}

export function write(root: string, relative: string, content: string | Buffer): void {
  mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
  writeFileSync(path.join(root, relative), content);
}

export type Shot = { kind: 'file'; content: string; mode: number } | { kind: 'symlink'; target: string };

/** Every file and link under `root` but in node_modules and .git (never checkpointed): content, permission bits, target. */
export function snapshot(root: string, relative = ''): Record<string, Shot> {
  const shots: Record<string, Shot> = {};
  for (const entry of readdirSync(path.join(root, relative), { withFileTypes: true })) {
    const child = relative === '' ? entry.name : `${relative}/${entry.name}`;
    const full = path.join(root, child);
    if (entry.isDirectory()) {
      if (entry.name !== 'node_modules' && entry.name !== '.git') Object.assign(shots, snapshot(root, child));
    } else if (entry.isSymbolicLink()) {
      shots[child] = { kind: 'symlink', target: readlinkSync(full) };
    } else {
      const mode = lstatSync(full).mode & 0o777;
      shots[child] = { kind: 'file', content: readFileSync(full).toString('base64'), mode };
    }
  }
  return shots;
}

export const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');
export const objectFile = (store: string, content: string | Buffer) =>
  path.join(store, 'objects', sha256(content).slice(0, 2), sha256(content));
