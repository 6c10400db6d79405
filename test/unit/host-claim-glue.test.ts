import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import type { WorkerListingConnection } from '../../src/client/worker-heartbeats';
import {
  claimHost,
  recheckClaimWhenRunning,
  type HostClaimOptions,
} from '../../src/worker/host-claim/host-claim';
import { DISK_MARKER_NAME } from '../../src/worker/host-claim/disk-marker';
import { HostClaimError } from '../../src/worker/host-claim/host-claim-error';
import { tempDirectory } from '../support/temp-directory';

const { WorkerStatus } = temporal.api.enums.v1;
const NOW = 1_000_000;

/** The test's clock: sleeping moves it on. */
function clock() {
  let nowMs = NOW;
  return {
    now: () => nowMs,
    sleep: (milliseconds: number) => {
      nowMs += milliseconds;
      return Promise.resolve();
    },
  };
}

/**
 * A ListWorkers answer with one running keel worker of h1 per instance given, each beating half a
 * second before `now()`; a `dead` one beat last half a second before the test began.
 */
function listing(
  workers: { instance: string; startedAtMs: number; disk?: string; dead?: boolean }[],
  now: () => number = () => NOW,
): WorkerListingConnection {
  const answer = () => ({
    workersInfo: workers.map((worker) => {
      const beatMs = (worker.dead === true ? NOW : now()) - 500;
      const disk = worker.disk === undefined ? '' : ` disk=${worker.disk}`;
      return {
        workerHeartbeat: {
          workerIdentity: `keel-host=h1 7@machine-${worker.instance} instance=${worker.instance} heartbeat=1000${disk}`,
          workerInstanceKey: `key-${worker.instance}`,
          taskQueue: 'keel@h1',
          status: WorkerStatus.WORKER_STATUS_RUNNING,
          heartbeatTime: { seconds: Math.floor(beatMs / 1000), nanos: (beatMs % 1000) * 1e6 },
          startTime: { seconds: worker.startedAtMs / 1000 },
        },
      };
    }),
  });
  return {
    workflowService: { listWorkers: () => Promise.resolve(answer()) },
  } as unknown as WorkerListingConnection;
}

function options(connection: WorkerListingConnection, extra: Partial<HostClaimOptions> = {}) {
  const warnings: string[] = [];
  const infos: string[] = [];
  const root = tempDirectory('keel-claim-glue-');
  return {
    warnings,
    infos,
    root,
    options: {
      connection,
      namespace: 'default',
      taskQueue: 'keel',
      hostId: 'h1',
      instanceId: 'mine',
      replica: false,
      workspaceRoots: [root],
      heartbeatIntervalMs: 1,
      warn: (line: string) => warnings.push(line),
      info: (line: string) => infos.push(line),
      now: () => NOW,
      ...extra,
    } satisfies HostClaimOptions,
  };
}

test('claimed: the root is marked and its disk id returned; refused: a HostClaimError, and no marker left', async () => {
  const free = options(listing([]));
  const claim = await claimHost(free.options);
  assert.match(claim.diskId ?? '', /^[0-9a-f]{8}$/);
  assert.deepEqual(readdirSync(free.root), [DISK_MARKER_NAME]);
  assert.deepEqual(free.infos, [], 'nobody held it: no wait');

  const time = clock();
  const taken = options(listing([{ instance: 'theirs', startedAtMs: NOW - 60_000 }], time.now), time);
  await assert.rejects(claimHost(taken.options), (error: unknown) => {
    assert.ok(error instanceof HostClaimError);
    assert.match(
      error.message,
      /^host id h1 is held by a live worker on machine-theirs \(pid 7, instance theirs/,
    );
    return true;
  });
  // A refused machine must not mark its disk for h1: its operator's fix is another host id.
  assert.equal(existsSync(path.join(taken.root, DISK_MARKER_NAME)), false);
  // Refused only once the holder beat again after the time its last beat would have aged.
  assert.ok(time.now() - NOW > 2500, `looked again after ${time.now() - NOW} ms`);
  assert.match(
    taken.infos.join('\n'),
    /^host id h1 is held by another instance that beat moments ago; waiting 3 s/,
  );
});

test('a holder killed a moment ago (a crash, then a restart) looks live, stops beating, and the id is taken', async () => {
  const time = clock();
  const restart = options(
    listing([{ instance: 'crashed', startedAtMs: NOW - 60_000, dead: true }], time.now),
    time,
  );
  const claim = await claimHost(restart.options);
  assert.ok(claim.diskId);
  assert.deepEqual(claim.joined, []);
  assert.equal(restart.infos.length, 1, 'it said why it waited');
  assert.ok(time.now() - NOW > 2500, `it waited ${time.now() - NOW} ms for the old beat to age`);
});

test('a server that cannot list its workers: one warning line, and the worker starts as before', async () => {
  const connection = {
    workflowService: {
      listWorkers: () => Promise.reject(new Error('12 UNIMPLEMENTED: unknown method ListWorkers\nmore')),
    },
  } as unknown as WorkerListingConnection;
  const { options: given, warnings } = options(connection);
  const claim = await claimHost(given);
  assert.ok(claim.diskId);
  assert.equal(warnings.length, 1);
  assert.match(
    warnings[0] ?? '',
    /cannot check whether another machine already serves host id h1 \(listing the server's workers failed: 12 UNIMPLEMENTED: unknown method ListWorkers\); starting unchecked/,
  );
});

/** Enough of a Worker for the recheck: run() lasts until shutdown(). */
function fakeWorker() {
  let stop: () => void = () => undefined;
  let state = 'INITIALIZED';
  const worker = {
    getState: () => state,
    shutdown: () => {
      state = 'STOPPING';
      stop();
    },
    run: () =>
      new Promise<void>((resolve) => {
        state = 'RUNNING';
        stop = resolve;
      }),
  };
  return worker as unknown as Worker & { getState: () => string };
}

test('after start, the later starter of a clashing pair stops and its run() throws the line; the earlier runs on', async () => {
  const pair = listing([
    { instance: 'early', startedAtMs: NOW - 5000 },
    { instance: 'late', startedAtMs: NOW - 4000 },
  ]);
  const late = fakeWorker();
  recheckClaimWhenRunning(late, options(pair, { instanceId: 'late' }).options);
  await assert.rejects(late.run(), (error: unknown) => {
    assert.ok(error instanceof HostClaimError);
    assert.match(error.message, /^host id h1 is held by a live worker on machine-early/);
    return true;
  });

  const early = fakeWorker();
  recheckClaimWhenRunning(early, options(pair, { instanceId: 'early' }).options);
  const running = early.run();
  // Past the recheck (interval 1 ms + the grace): still running; then stopped by its owner.
  await new Promise((resolve) => setTimeout(resolve, 2500));
  assert.equal(early.getState(), 'RUNNING');
  early.shutdown();
  await running;
});
