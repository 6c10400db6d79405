// A network-granted command that changes files runs on a copy-on-write layer; when its network
// cannot be set up there (here: a slirp4netns that fails, first on PATH), the call is "not run",
// typed, and its layer leaves nothing behind, rather than the launcher's exit 125 read as the
// command's own exit.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { runCommand } from '../../src/activities/tools/run-command';
import { NETWORK_ISOLATION_UNAVAILABLE } from '../../src/activities/tools/sandbox/network-isolation';
import { resetSandboxStatus, sandboxStatus } from '../../src/activities/tools/sandbox/sandbox-status';
import { makeWorkspace, toolContext } from './tools-test-helpers';

const fakes = mkdtempSync(path.join(tmpdir(), 'keel-failing-slirp-'));
writeFileSync(path.join(fakes, 'slirp4netns'), '#!/bin/sh\necho "slirp4netns: refused here" >&2\nexit 1\n');
chmodSync(path.join(fakes, 'slirp4netns'), 0o755);
const searchPath = process.env.PATH;
process.env.PATH = `${fakes}:${searchPath ?? ''}`;
resetSandboxStatus();

test('a network-granted command on a layer whose network cannot be set up is not run, typed', async (t) => {
  t.after(() => {
    process.env.PATH = searchPath;
    resetSandboxStatus();
    rmSync(fakes, { recursive: true, force: true });
  });
  const status = sandboxStatus();
  assert.ok(status.mode === 'bubblewrap' && status.layers.available && status.network.available);
  const workspace = makeWorkspace();
  await assert.rejects(
    runCommand(
      { command: 'echo ran > ran.txt', changesFiles: true },
      toolContext(workspace, { network: true }),
    ),
    (error: unknown) =>
      error instanceof ApplicationFailure &&
      error.type === NETWORK_ISOLATION_UNAVAILABLE &&
      error.nonRetryable,
  );
  assert.equal(existsSync(path.join(workspace, 'ran.txt')), false, 'the command never ran');
  assert.deepEqual(readdirSync(workspace), [], 'nothing of the layer reached the workspace');
});
