/**
 * The reflection store contract (test/support/reflection-store-contract.ts) run against the memory
 * and file stores, then the checks only one of them can have: corrupt data, leftover temp files,
 * the memory store's warning.
 */
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { taskIdentity, type Warn } from '../../src/activities/reflection-store/reflection-store';
import {
  MEMORY_STORE_WARNING,
  createMemoryReflectionStore,
} from '../../src/activities/reflection-store/memory-reflection-store';
import {
  createFileReflectionStore,
  defaultReflectionDirectory,
} from '../../src/activities/reflection-store/file-reflection-store';
import { reflection, reflectionStoreContract, type Fixture } from '../support/reflection-store-contract';

test('task identity is the lowercase hex SHA-256 of the UTF-8 description', () => {
  assert.equal(taskIdentity('abc'), 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  assert.equal(taskIdentity(''), 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
  assert.equal(taskIdentity('é'), '4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c');
});

// ---------------------------------------------------------------- memory

function memoryFixture(): Promise<Fixture> {
  const warnings: string[] = [];
  const store = createMemoryReflectionStore({ warn: (message) => warnings.push(message) });
  // One process, one map: "another instance" is the same store; nothing survives a restart.
  let opened = 0;
  return Promise.resolve({
    open: () =>
      opened++ === 0 ? store : createMemoryReflectionStore({ warn: (message) => warnings.push(message) }),
    persistent: false,
    warnings,
    cleanup: () => Promise.resolve(),
  });
}

reflectionStoreContract('memory', memoryFixture);

test('the memory store warns once, at creation, that nothing persists', async () => {
  const warnings: string[] = [];
  const store = createMemoryReflectionStore({ warn: (message) => warnings.push(message) });
  await store.store(taskIdentity('x'), reflection());
  await store.retrieve(taskIdentity('x'));
  await store.list();
  assert.deepEqual(warnings, [MEMORY_STORE_WARNING]);
  assert.match(MEMORY_STORE_WARNING, /not persist/);
});

// ---------------------------------------------------------------- file

function fileFixture(): Promise<Fixture> {
  const directory = mkdtempSync(path.join(tmpdir(), 'keel-reflections-'));
  const warnings: string[] = [];
  const warn: Warn = (message) => warnings.push(message);
  return Promise.resolve({
    open: () => createFileReflectionStore({ directory, warn }),
    persistent: true,
    warnings,
    cleanup: () => Promise.resolve(rmSync(directory, { recursive: true, force: true })),
  });
}

reflectionStoreContract('file', fileFixture);

describe('file reflection store', () => {
  function temporaryDirectory(t: TestContext): string {
    const directory = mkdtempSync(path.join(tmpdir(), 'keel-reflections-'));
    t.after(() => rmSync(directory, { recursive: true, force: true }));
    return directory;
  }

  test('a corrupt file is treated as absent with a warning, and a new store replaces it', async (t) => {
    const directory = temporaryDirectory(t);
    const warnings: string[] = [];
    const store = createFileReflectionStore({ directory, warn: (message) => warnings.push(message) });
    const broken = taskIdentity('broken');
    const invalid = taskIdentity('invalid');
    const healthy = taskIdentity('healthy');
    await store.store(healthy, reflection());
    writeFileSync(path.join(directory, `${broken}.json`), '{"schemaVersion": 1, "reflection": {"refi');
    writeFileSync(
      path.join(directory, `${invalid}.json`),
      JSON.stringify({ schemaVersion: 1, taskIdentity: invalid, reflection: { runCount: 0 } }),
    );

    assert.equal(await store.retrieve(broken), undefined);
    assert.equal(await store.retrieve(invalid), undefined);
    assert.equal(warnings.length, 2);
    assert.ok(warnings.every((warning) => !warning.includes('\n')));
    assert.match(warnings[0] ?? '', new RegExp(`${broken}\\.json: not valid JSON`));

    assert.deepEqual(
      (await store.list()).map((entry) => entry.taskIdentity),
      [healthy],
    );
    await store.store(broken, reflection({ runCount: 5 }));
    assert.equal((await store.retrieve(broken))?.runCount, 5);
  });

  test('a temp file left by a crash mid-write is ignored and the old reflection stays', async (t) => {
    const directory = temporaryDirectory(t);
    const store = createFileReflectionStore({ directory, warn: () => {} });
    const identity = taskIdentity('crash');
    await store.store(identity, reflection({ runCount: 1 }));
    writeFileSync(path.join(directory, `.${identity}.json.123.abc.tmp`), '{"half": ');
    assert.equal((await store.retrieve(identity))?.runCount, 1);
    assert.equal((await store.list()).length, 1);
  });

  test('concurrent writes leave no temp files behind', async (t) => {
    const directory = temporaryDirectory(t);
    const store = createFileReflectionStore({ directory, warn: () => {} });
    const identity = taskIdentity('tidy');
    await Promise.all(
      Array.from({ length: 20 }, (_, index) => store.store(identity, reflection({ runCount: index + 1 }))),
    );
    assert.deepEqual(readdirSync(directory), [`${identity}.json`]);
  });

  test('listing a directory that does not exist yet is empty; the first store creates it', async (t) => {
    const directory = path.join(temporaryDirectory(t), 'nested', 'reflections');
    const store = createFileReflectionStore({ directory, warn: () => {} });
    assert.deepEqual(await store.list(), []);
    await store.store(taskIdentity('first'), reflection());
    assert.equal((await store.list()).length, 1);
  });

  test('the default directory is ~/.keel/reflections', () => {
    assert.match(defaultReflectionDirectory(), /[\\/]\.keel[\\/]reflections$/);
  });
});
