import type { TestContext } from 'node:test';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileTree } from './file-tree';
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

/**
 * Every file and link under `root` but in node_modules and .git (never checkpointed): content,
 * permission bits, link target (file-tree.ts).
 */
export function snapshot(root: string): Record<string, string> {
  return fileTree(root, ['node_modules', '.git']);
}

export const sha256 = (content: string | Buffer) => createHash('sha256').update(content).digest('hex');
export const objectFile = (store: string, content: string | Buffer) =>
  path.join(store, 'objects', sha256(content).slice(0, 2), sha256(content));
