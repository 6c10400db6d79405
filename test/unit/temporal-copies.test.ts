import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { NativeConnection } from '@temporalio/worker';
import {
  assertOneTemporalCopy,
  copyResolvedFrom,
  packageRootOf,
  TemporalCopiesError,
} from '../../src/worker/temporal-copies';
import { workerConnection, WorkerOptionsError } from '../../src/worker/connection';
import { runWorker } from '../../src/worker';
import { tempDirectory } from '../support/temp-directory';

const KEELS_WORKER = copyResolvedFrom('@temporalio/worker', path.resolve(__dirname, '../../src'));

/** A module cache as Node keeps it: file name → module (only `exports` is read). */
function cacheOf(modules: Record<string, unknown>): NodeJS.Dict<NodeJS.Module> {
  return Object.fromEntries(
    Object.entries(modules).map(([file, exports]) => [file, { exports } as NodeJS.Module]),
  );
}

function oneLine(error: unknown): string {
  assert.ok(error instanceof TemporalCopiesError, String(error));
  assert.doesNotMatch(error.message, /\n/);
  return error.message;
}

test('a package file names its package folder; a file outside node_modules names none', () => {
  assert.equal(
    packageRootOf('/p/node_modules/keel/node_modules/@temporalio/worker/lib/index.js', '@temporalio/worker'),
    '/p/node_modules/keel/node_modules/@temporalio/worker',
  );
  assert.equal(packageRootOf('/p/src/worker.ts', '@temporalio/worker'), undefined);
});

test("keel's own copy passes: its NativeConnection, and this process's module cache", () => {
  assert.doesNotThrow(() =>
    assertOneTemporalCopy({ connection: Object.create(NativeConnection.prototype) as object }),
  );
});

test('a NativeConnection of another copy is refused in one line naming both copies and the fix', () => {
  class NativeConnectionOfAnotherCopy {}
  const other = '/project/node_modules/@temporalio/worker';
  const cache = cacheOf({ [`${other}/lib/index.js`]: { NativeConnection: NativeConnectionOfAnotherCopy } });
  const message = oneLine(
    catching(() => assertOneTemporalCopy({ connection: new NativeConnectionOfAnotherCopy(), cache })),
  );
  assert.equal(
    message.slice(0, message.indexOf(';')),
    `keel: two copies of @temporalio/worker: ${other} (your NativeConnection's) and ${KEELS_WORKER} (keel's)`,
  );
  assert.match(
    message,
    /install keel's peer dependencies once in your project \(npm install, then npm dedupe/,
  );
  // Not found in the cache (e.g. loaded some other way): still refused, with keel's path.
  assert.match(
    oneLine(catching(() => assertOneTemporalCopy({ connection: {}, cache: {} }))),
    /another copy \(your NativeConnection's\) and .*@temporalio\/worker \(keel's\)/,
  );
});

test('another @temporalio/worker loaded in the process is refused, even without a connection', () => {
  const cache = cacheOf({ '/elsewhere/node_modules/@temporalio/worker/lib/worker.js': {} });
  assert.match(
    oneLine(catching(() => assertOneTemporalCopy({ cache }))),
    /^keel: two copies of @temporalio\/worker: \/elsewhere\/node_modules\/@temporalio\/worker \(also loaded\) and /,
  );
});

test("a @temporalio/worker that would bundle another @temporalio/workflow than keel's is refused", () => {
  const packageAt = (folder: string) => {
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'package.json'), '{"name":"x","version":"1.24.0"}');
  };
  /** A project with keel in it, and (when nested) a @temporalio/workflow inside the worker package. */
  const project = (nested: boolean) => {
    const root = tempDirectory('keel-temporal-copies-');
    const modules = path.join(root, 'node_modules/@temporalio');
    packageAt(path.join(modules, 'worker'));
    packageAt(path.join(modules, 'workflow'));
    if (nested) packageAt(path.join(modules, 'worker/node_modules/@temporalio/workflow'));
    mkdirSync(path.join(root, 'keel'));
    return path.join(root, 'keel');
  };
  assert.doesNotThrow(() => assertOneTemporalCopy({ keelDirectory: project(false), cache: {} }));
  assert.match(
    oneLine(catching(() => assertOneTemporalCopy({ keelDirectory: project(true), cache: {} }))),
    /^keel: two copies of @temporalio\/workflow: \S+worker\/node_modules\/@temporalio\/workflow \(what @temporalio\/worker bundles\) and \S+node_modules\/@temporalio\/workflow \(keel's\);/,
  );
});

test('worker connection options: a connection or where to connect, not both; empty settings refused', async () => {
  const connection = Object.create(NativeConnection.prototype) as NativeConnection;
  await assert.rejects(
    workerConnection({ connection, address: 'temporal:7233', apiKey: 'k' }),
    new WorkerOptionsError(
      'createKeelWorker: give either connection or address, apiKey, not both (the connection already says where it connects)',
    ),
  );
  await assert.rejects(
    workerConnection({ connection, namespace: ' ' }),
    new WorkerOptionsError('createKeelWorker: namespace must be a non-empty string'),
  );
  // A connection of one's own: namespace and task queue from the environment, else the defaults.
  const given = await workerConnection({ connection }, { TEMPORAL_NAMESPACE: 'team' });
  assert.deepEqual(
    { ...given, connection: given.connection === connection },
    { connection: true, namespace: 'team', taskQueue: 'keel', address: undefined, owned: false },
  );
  await assert.rejects(workerConnection({ connection: {} as NativeConnection }), TemporalCopiesError);
});

test('runWorker refuses two sources of one thing in one line, before it connects or starts anything', async () => {
  const anthropic = {} as NonNullable<Parameters<typeof runWorker>[0]>['anthropic'];
  await assert.rejects(
    runWorker({ anthropic, scriptedScenarioFile: 'scenario.yaml' }),
    new WorkerOptionsError('runWorker: give either anthropic or scriptedScenarioFile, not both'),
  );
  await assert.rejects(
    runWorker({ approvalRules: [], approvalRulesFile: 'rules.json' }),
    new WorkerOptionsError('runWorker: give either approvalRules or approvalRulesFile, not both'),
  );
});

function catching(run: () => void): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  assert.fail('expected an error');
}
