import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  ReflectionStoreConfigError,
  createReflectionStore,
  reflectionStoreConfigFromEnv,
} from '../../src/activities/reflection-store/create-reflection-store';
import { MEMORY_STORE_WARNING } from '../../src/activities/reflection-store/memory-reflection-store';
import { taskIdentity } from '../../src/activities/reflection-store/reflection-store';

const reflection = {
  refinedDescription: 'd',
  refinedExpectedOutput: 'o',
  observations: [],
  suggestions: [],
  reflectedAt: '2025-01-01T00:00:00.000Z',
  runCount: 1,
};

test('the file store is the default', () => {
  assert.deepEqual(reflectionStoreConfigFromEnv({}), { kind: 'file' });
  assert.deepEqual(reflectionStoreConfigFromEnv({ KEEL_REFLECTION_STORE: '' }), { kind: 'file' });
});

test('each kind is read with its settings', () => {
  assert.deepEqual(reflectionStoreConfigFromEnv({ KEEL_REFLECTION_STORE: 'memory' }), { kind: 'memory' });
  assert.deepEqual(
    reflectionStoreConfigFromEnv({ KEEL_REFLECTION_STORE: 'file', KEEL_REFLECTION_DIR: '/var/keel/notes' }),
    { kind: 'file', directory: '/var/keel/notes' },
  );
  assert.deepEqual(reflectionStoreConfigFromEnv({ KEEL_REFLECTION_DIR: 'relative/notes' }), {
    kind: 'file',
    directory: path.resolve('relative/notes'),
  });
  assert.deepEqual(
    reflectionStoreConfigFromEnv({
      KEEL_REFLECTION_STORE: 'postgres',
      KEEL_REFLECTION_DATABASE_URL: 'postgresql://keel@db:5432/keel',
    }),
    { kind: 'postgres', connectionString: 'postgresql://keel@db:5432/keel' },
  );
});

test('invalid values fail with one clear line naming the variable', () => {
  const cases: Array<[NodeJS.ProcessEnv, string]> = [
    [{ KEEL_REFLECTION_STORE: 'sqlite' }, 'KEEL_REFLECTION_STORE'],
    [{ KEEL_REFLECTION_STORE: 'postgres' }, 'KEEL_REFLECTION_DATABASE_URL'],
    [
      { KEEL_REFLECTION_STORE: 'postgres', KEEL_REFLECTION_DATABASE_URL: 'mysql://x' },
      'KEEL_REFLECTION_DATABASE_URL',
    ],
  ];
  for (const [env, variable] of cases) {
    assert.throws(
      () => reflectionStoreConfigFromEnv(env),
      (error: Error) =>
        error instanceof ReflectionStoreConfigError &&
        error.message.includes(variable) &&
        !error.message.includes('\n'),
      JSON.stringify(env),
    );
  }
});

test('createReflectionStore builds the configured store', async (t) => {
  const warnings: string[] = [];
  const memory = createReflectionStore({ kind: 'memory' }, { warn: (message) => warnings.push(message) });
  assert.deepEqual(warnings, [MEMORY_STORE_WARNING]);
  await memory.store(taskIdentity('m'), reflection);
  assert.deepEqual(await memory.retrieve(taskIdentity('m')), reflection);

  const directory = mkdtempSync(path.join(tmpdir(), 'keel-reflections-'));
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  const file = createReflectionStore({ kind: 'file', directory });
  await file.store(taskIdentity('f'), reflection);
  assert.deepEqual(readdirSync(directory), [`${taskIdentity('f')}.json`]);
  assert.deepEqual(warnings.length, 1);
});
