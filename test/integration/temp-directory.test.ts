import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

// Tests clean up what they create even when a run is stopped: a test process ended by SIGTERM
// or SIGINT removes its temporary folders, and still ends by that signal.

const SUPPORT = path.resolve(__dirname, '../support/temp-directory.ts');

for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  test(`a test process ended by ${signal} removes its temporary folders`, async () => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        '-e',
        `const { tempDirectory } = require(${JSON.stringify(SUPPORT)});` +
          `console.log(tempDirectory('keel-signal-'));setInterval(() => {}, 1000);`,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    const folder = await new Promise<string>((resolve, reject) => {
      child.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString().trim()));
      child.once('error', reject);
    });
    assert.ok(existsSync(folder), folder);
    const ended = new Promise<NodeJS.Signals | null>((resolve) =>
      child.once('exit', (_code, by) => resolve(by)),
    );
    child.kill(signal);
    assert.equal(await ended, signal, 'it still ends by the signal');
    assert.equal(existsSync(folder), false, `${folder} was removed`);
  });
}
