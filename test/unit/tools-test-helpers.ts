import { mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDirectory } from '../support/temp-directory';
import type { ToolContext } from '../../src/activities/tools/tool-context';

/** A fresh real temp directory (symlink-resolved, as execute-tool hands it to tools). */
export function makeWorkspace(prefix = 'keel-tools-'): string {
  return realpathSync(tempDirectory(prefix));
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
    // As if approved: the unconfined read-only check has tests of its own (sandbox.test.ts).
    reversibility: 'irreversible',
    network: false,
    signal: new AbortController().signal,
    heartbeat: () => {},
    log: { info: () => {}, warn: () => {}, error: () => {} },
    ...overrides,
  };
}
