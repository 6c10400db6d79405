import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { main } from '../../src/cli/main';

// Issue 46: `keel worker --scripted FILE` with a file it cannot use prints the ScenarioError's one
// line (file and field) and exits 2, like any mistake the user can fix, before connecting anywhere.

const directory = mkdtempSync(path.join(tmpdir(), 'keel-scenario-cli-'));
after(() => rmSync(directory, { recursive: true, force: true }));

async function workerWith(file: string): Promise<{ code: number; stderr: string }> {
  const write = process.stderr.write.bind(process.stderr);
  let stderr = '';
  process.stderr.write = (chunk: string | Uint8Array) => {
    stderr += String(chunk);
    return true;
  };
  try {
    // A port nothing answers on: were the scenario accepted, the worker would fail to connect.
    const code = await main(['--address', '127.0.0.1:1', 'worker', '--scripted', file]);
    return { code, stderr };
  } finally {
    process.stderr.write = write;
  }
}

test('a scenario field the schema refuses: one line with the file and the field, exit code 2', async () => {
  const file = path.join(directory, 'wrong.yaml');
  writeFileSync(file, 'name: x\nturns:\n  - toolCalls: [{ name: 7 }]\n');
  assert.deepEqual(await workerWith(file), {
    code: 2,
    stderr: `keel: ${file}: turns[0].toolCalls[0].name: expected string, received number\n`,
  });
});

test('a scenario syntax error: one line with the file, line and column, exit code 2', async () => {
  const file = path.join(directory, 'broken.yaml');
  writeFileSync(file, 'name: x\nturns:\n  - text: a: b\n');
  assert.deepEqual(await workerWith(file), {
    code: 2,
    stderr: `keel: ${file}:3:11: Nested mappings are not allowed in compact mappings\n`,
  });
});

test('a missing scenario file: one line with the file, exit code 2', async () => {
  const file = path.join(directory, 'absent.yaml');
  assert.deepEqual(await workerWith(file), {
    code: 2,
    stderr: `keel: ${file}: cannot read the scenario file: no such file\n`,
  });
});
