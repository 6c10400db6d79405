import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Worker } from '@temporalio/worker';
import { keelHostOf, runWithHostWorker } from '../../src/worker/host-worker';

/** Enough of a Worker: run() until shutdown() (or fail()), with the SDK's states. */
function fakeWorker(name: string, log: string[]) {
  let state = 'INITIALIZED';
  let end: (error?: Error) => void = () => undefined;
  const worker = {
    getState: () => state,
    run: () =>
      new Promise<void>((resolve, reject) => {
        if (state !== 'INITIALIZED') return reject(new Error('Poller was already started'));
        state = 'RUNNING';
        log.push(`${name} runs`);
        end = (error) => {
          state = error ? 'FAILED' : 'STOPPED';
          log.push(`${name} ${state.toLowerCase()}`);
          if (error) reject(error);
          else resolve();
        };
      }),
    shutdown: () => {
      assert.equal(state, 'RUNNING', `${name} shut down while ${state}`);
      state = 'DRAINING';
      setImmediate(() => end());
    },
    fail: (error: Error) => end(error),
  };
  return worker;
}

function pair() {
  const log: string[] = [];
  const main = fakeWorker('main', log);
  const host = fakeWorker('host', log);
  const info = {
    hostId: 'h',
    hostTaskQueue: 'q@h',
    workspaceRoots: [],
    hostWorker: host as unknown as Worker,
    instanceId: 'i1',
    replicaOf: [],
  };
  runWithHostWorker(main as unknown as Worker, info);
  return { log, main, host, info };
}

test('run() runs the host worker too; when the main worker stops, the host worker is stopped and awaited', async () => {
  const { log, main, info } = pair();
  assert.equal(keelHostOf(main as unknown as Worker), info);
  const running = main.run();
  main.shutdown();
  await running;
  assert.deepEqual(log, ['host runs', 'main runs', 'main stopped', 'host stopped']);
});

test('a failing main worker stops the host worker, and its error is thrown', async () => {
  const { log, main } = pair();
  const running = main.run();
  main.fail(new Error('main broke'));
  await assert.rejects(running, /main broke/);
  assert.deepEqual(log, ['host runs', 'main runs', 'main failed', 'host stopped']);
});

test('a failing host worker stops the main one, and its error is thrown', async () => {
  const { log, main, host } = pair();
  const running = main.run();
  host.fail(new Error('host broke'));
  await assert.rejects(running, /host broke/);
  assert.deepEqual(log, ['host runs', 'main runs', 'host failed', 'main stopped']);
});

test('a second run() is the SDK’s to refuse; the running pair is left alone', async () => {
  const { main, host } = pair();
  const running = main.run();
  await assert.rejects(main.run(), /Poller was already started/);
  assert.equal(host.getState(), 'RUNNING');
  main.shutdown();
  await running;
});
