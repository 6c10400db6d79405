import { mkdtempSync, rmdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const created = new Set<string>();
let removeAtExit = false;

/**
 * A fresh directory under the system temp folder, removed when the test process exits (each test
 * file runs in a process of its own), so a test run leaves nothing behind in /tmp. A run stopped
 * by Ctrl-C or `kill` (SIGINT, SIGTERM) removes them too, then ends by that signal as it would
 * have: 'exit' is not emitted for a process a signal ends.
 */
export function tempDirectory(prefix = 'keel-test-'): string {
  const directory = mkdtempSync(path.join(tmpdir(), prefix));
  created.add(directory);
  if (!removeAtExit) {
    removeAtExit = true;
    process.once('exit', removeCreatedDirectories);
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        removeCreatedDirectories();
        process.kill(process.pid, signal); // this listener is gone: the default ends the process
      });
    }
  }
  return directory;
}

function removeCreatedDirectories(): void {
  for (const directory of created) {
    // What keel keeps beside a workspace (journal, copy-on-write layers) goes with it.
    const state = path.join(path.dirname(directory), '.keel-state');
    for (const target of [directory, path.join(state, path.basename(directory))]) {
      try {
        rmSync(target, { recursive: true, force: true });
      } catch {
        // A directory a sandbox made read-only, say: leave it rather than fail the exit.
      }
    }
    try {
      rmdirSync(state); // only when no other workspace's state is left in it
    } catch {
      // not empty, or never made
    }
  }
}
