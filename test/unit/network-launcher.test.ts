// The network launcher's own script, run for real: a setup that fails ends at once with the typed
// failure (never a loop spinning until the call's timeout), and an address given twice still works.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import {
  hostAddresses,
  isolatedNetworkLauncher,
  NETWORK_ISOLATION_UNAVAILABLE,
  networkSetupFailure,
  type NetworkIsolation,
} from '../../src/activities/tools/sandbox/network-isolation';
import { runSandboxedCommand } from '../../src/activities/tools/sandbox/run-sandboxed-command';
import { sandboxStatus } from '../../src/activities/tools/sandbox/sandbox-status';

const CALL_TIMEOUT_MILLISECONDS = 20_000;

/**
 * Runs argv with SIGCHLD blocked: a shell that reaps no child while it runs only builtins (as the
 * reviewer's dash did), so a child that exited stays a zombie (Z) instead of vanishing. This
 * machine's dash reaps at once, which would hide a loop that waits for T and never sees Z.
 */
const NOT_REAPING = [
  '/usr/bin/python3',
  '-c',
  'import os, signal, sys; signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGCHLD}); os.execv(sys.argv[1], sys.argv[1:])',
];

function realIsolation(): Extract<NetworkIsolation, { available: true }> {
  const status = sandboxStatus();
  assert.ok(status.mode === 'bubblewrap' && status.network.available, JSON.stringify(status));
  return status.network;
}

/** The launcher running `command` (no bwrap: the launcher alone is under test). */
async function launch(
  isolation: NetworkIsolation,
  blockedAddresses: readonly string[],
  command: string,
  reaping = true,
) {
  const [program, ...rest] = [
    ...(reaping ? [] : NOT_REAPING),
    ...isolatedNetworkLauncher({ isolation, blockedAddresses }),
    '/bin/sh',
    '-c',
    command,
  ];
  const started = Date.now();
  return new Promise<{ exitCode: number | undefined; stdout: string; stderr: string; milliseconds: number }>(
    (resolve) => {
      execFile(program ?? '', rest, { timeout: CALL_TIMEOUT_MILLISECONDS }, (error, stdout, stderr) => {
        const code = (error as { code?: unknown } | null)?.code;
        resolve({
          exitCode: error === null ? 0 : typeof code === 'number' ? code : undefined,
          stdout,
          stderr,
          milliseconds: Date.now() - started,
        });
      });
    },
  );
}

function assertTypedSetupFailure(result: Awaited<ReturnType<typeof launch>>, detail: RegExp) {
  // Well under the call's timeout: the launcher noticed its child was gone, it did not spin.
  assert.ok(result.milliseconds < 5000, `took ${result.milliseconds} ms: ${result.stderr}`);
  assert.equal(result.exitCode, 125, result.stderr);
  assert.equal(result.stdout, '', 'the command never ran');
  const failure = networkSetupFailure(result);
  assert.ok(failure instanceof ApplicationFailure, result.stderr);
  assert.equal(failure.type, NETWORK_ISOLATION_UNAVAILABLE);
  assert.equal(failure.nonRetryable, true);
  assert.match(failure.message, detail);
}

for (const reaping of [true, false]) {
  const shell = reaping ? 'a shell that reaps' : 'a shell that reaps nothing (zombies)';
  test(`unshare refused, ${shell}: the launcher ends at once with the typed failure`, async () => {
    const isolation = { ...realIsolation(), unshare: '/bin/false' };
    const result = await launch(isolation, [], 'echo ran', reaping);
    assertTypedSetupFailure(result, /no network namespace could be made/);
  });

  test(`a route that cannot be set, ${shell}: the launcher ends at once with the typed failure`, async () => {
    const result = await launch(realIsolation(), ['not-an-address'], 'echo ran', reaping);
    assertTypedSetupFailure(result, /no network namespace could be made/);
  });

  test(`slirp4netns that fails, ${shell}: the launcher ends at once with the typed failure`, async () => {
    const isolation = { ...realIsolation(), slirp4netns: '/bin/false' };
    const result = await launch(isolation, [], 'echo ran', reaping);
    assertTypedSetupFailure(result, /slirp4netns could not give/);
  });
}

test('an address given twice still sets the network up, and the command runs', async () => {
  const result = await launch(realIsolation(), ['192.0.2.9', '192.0.2.9'], 'echo ran');
  assert.equal(result.exitCode, 0, result.stderr);
  assert.equal(result.stdout, 'ran\n');
  assert.equal(networkSetupFailure(result), undefined);
});

test("the host's own addresses are each given once", () => {
  const addresses = hostAddresses();
  assert.equal(new Set(addresses).size, addresses.length, addresses.join(' '));
});

test("the command's own exit status 125 is not a setup failure", () => {
  assert.equal(networkSetupFailure({ exitCode: 125, stderr: 'bwrap: something else\n' }), undefined);
  assert.equal(
    networkSetupFailure({ exitCode: 1, stderr: 'keel: network isolation failed: x\n' }),
    undefined,
  );
});

test('run_command granted network whose namespace cannot be made is "not run", typed, not exit 125', async () => {
  const status = sandboxStatus();
  assert.ok(status.mode === 'bubblewrap');
  const workspace = mkdtempSync(path.join(tmpdir(), 'keel-network-setup-'));
  try {
    await assert.rejects(
      runSandboxedCommand({
        command: 'echo ran > ran.txt',
        workspace,
        env: { PATH: process.env.PATH ?? '' },
        network: true,
        status: { ...status, network: { ...realIsolation(), unshare: '/bin/false' } },
        timeoutMs: CALL_TIMEOUT_MILLISECONDS,
      }),
      (error: unknown) =>
        error instanceof ApplicationFailure &&
        error.type === NETWORK_ISOLATION_UNAVAILABLE &&
        error.nonRetryable,
    );
    assert.equal(existsSync(path.join(workspace, 'ran.txt')), false, 'the command never ran');
  } finally {
    rmSync(workspace, { recursive: true, force: true });
  }
});
