import { test } from 'node:test';
import assert from 'node:assert/strict';
import { hostsCommandExitCode, noHostsLine } from '../../src/cli/hosts-command';
import { noAnswerError, noPollerError } from '../../src/cli/tools-command';
import { ExitCode } from '../../src/cli/exit-codes';
import type { HostLiveness } from '../../src/client/host-liveness';

/**
 * Issue 46: with no worker, `keel hosts` exited 1 and `keel tools` 2, each in its own words. Both
 * now say it as every command does (no-worker.ts: "no worker polls task queue …") and exit 3.
 */

test('keel hosts: no worker on the queue is exit 3 and the shared words', () => {
  assert.equal(hostsCommandExitCode([]), ExitCode.NoWorker);
  assert.equal(
    noHostsLine('keel'),
    'no worker polls task queue keel: start one (keel worker), or name its queue with --task-queue',
  );
});

test('keel hosts: a live host is 0, a host a running goal needs that is missing is 3', () => {
  const host = (state: HostLiveness['state'], runningGoals: number): HostLiveness => ({
    hostId: 'h',
    hostTaskQueue: 'keel@h',
    state,
    instances: [],
    runningGoals,
  });
  assert.equal(hostsCommandExitCode([host('live', 1)]), ExitCode.Ok);
  assert.equal(hostsCommandExitCode([host('stopped', 0)]), ExitCode.NoWorker, 'no live host');
  assert.equal(hostsCommandExitCode([host('missing', 2)]), 3, 'a needed host is missing');
});

test('keel tools: nothing polls, or no answer in time: exit 3 and the shared words', () => {
  const none = noPollerError('keel', 'default');
  assert.equal(none.exitCode, ExitCode.NoWorker);
  assert.match(none.message, /^no worker polls task queue keel: a worker's tools exist only in its process/);
  const late = noAnswerError('keel', 10_000, ['h1', 'h2']);
  assert.equal(late.exitCode, ExitCode.NoWorker);
  assert.equal(
    late.message,
    'no worker answered within 10 s (task queue keel): live hosts: h1, h2; one older than keel tools cannot answer',
  );
});
