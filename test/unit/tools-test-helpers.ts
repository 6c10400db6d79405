import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { tempDirectory } from '../support/temp-directory';
import type { ToolContext } from '../../src/activities/tools/tool-context';

/**
 * A fresh real directory (symlink-resolved, as execute-tool hands it to tools), alone in a temp
 * directory of its own: what keel keeps beside a workspace (journal, copy-on-write layers, in
 * `../.keel-state/`) lands in the same temp directory and goes with it.
 */
export function makeWorkspace(prefix = 'keel-tools-'): string {
  const workspace = path.join(realpathSync(tempDirectory(prefix)), 'workspace');
  mkdirSync(workspace);
  return workspace;
}

/** Writes files given as { 'relative/path': 'content' }, creating directories. */
export function writeFiles(root: string, files: Readonly<Record<string, string>>): void {
  for (const [relative, content] of Object.entries(files)) {
    const absolute = path.join(root, relative);
    mkdirSync(path.dirname(absolute), { recursive: true });
    writeFileSync(absolute, content);
  }
}

export function toolContext(workspace: string, overrides: Partial<ToolContext> = {}): ToolContext {
  return {
    workspace,
    goalId: 'test-workflow',
    callId: 'call-1',
    idempotencyKey: 'test-workflow/call-1',
    // Every context a call of its own: a command's layer is kept under this key.
    callKey: `test-workflow/${randomUUID()}`,
    // As if approved: what an unapproved call may do has tests of its own (layers, sandbox).
    reversibility: 'irreversible',
    approved: true,
    network: false,
    signal: new AbortController().signal,
    heartbeat: () => {},
    log: { info: () => {}, warn: () => {}, error: () => {} },
    ...overrides,
  };
}
