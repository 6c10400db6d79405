// The registry's lock lost mid-claim (its refresh missed the stale window): the claim fails,
// typed and retryable, and the worker lives on; proper-lockfile's default would throw in a timer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { claimOf, claimWorkspace, registryDirectory } from '../../src/activities/hosts/workspace-claims';
import { WorkspaceClaimsFailureType } from '../../src/activities/hosts/workspace-claims-failures';
import { tempDirectory } from '../support/temp-directory';

test('a lock lost mid-claim fails the claim retryably, records nothing, and crashes nothing', async () => {
  const base = tempDirectory('keel-claims-lock-');
  mkdirSync(path.join(base, 'nest', 'sub'), { recursive: true });
  const directory = registryDirectory('h1', [base]);
  const file = path.join(directory, 'workspace-claims.json');
  const claim = async (workflowId: string, relative: string, isLive: (id: string) => Promise<boolean>) =>
    claimWorkspace({
      directory,
      claim: await claimOf(workflowId, path.join(base, relative)),
      isLive,
      lockTiming: { staleMilliseconds: 2000, updateMilliseconds: 1000 },
    });
  assert.deepEqual(await claim('A', 'nest', () => Promise.resolve(true)), { ok: true });
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  process.on('uncaughtException', onUncaught);
  try {
    // While B waits to learn whether A still runs, its lock goes (another claimant took it over),
    // and the next refresh finds it gone.
    const losingTheLock = async () => {
      rmSync(`${file}.lock`, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 1500));
      return false;
    };
    await assert.rejects(claim('B', 'nest/sub', losingTheLock), (error: unknown) => {
      assert.ok(error instanceof ApplicationFailure);
      assert.equal(error.type, WorkspaceClaimsFailureType.LockCompromised);
      assert.equal(error.nonRetryable, false, 'a retry takes the lock afresh');
      assert.ok(error.message.includes(file), error.message);
      return true;
    });
    await new Promise((resolve) => setTimeout(resolve, 1500)); // any timer left would fire by now
  } finally {
    process.off('uncaughtException', onUncaught);
  }
  assert.deepEqual(uncaught, [], 'nothing thrown in a timer');
  const registry = JSON.parse(readFileSync(file, 'utf8')) as { claims: Array<{ workflowId: string }> };
  assert.deepEqual(
    registry.claims.map((entry) => entry.workflowId),
    ['A'],
    'the claim decided under a lost lock is not recorded',
  );
  assert.ok(!existsSync(`${file}.lock`), 'a lost lock is not released, nor made again');
  // The retry, under a lock of its own, decides as usual.
  assert.deepEqual(await claim('B', 'nest/sub', () => Promise.resolve(false)), { ok: true });
});
