/**
 * One contract suite for every ReflectionStore, run against memory, file (temp directory) and a
 * real PostgreSQL server started for this file. Then the checks only one backend can have:
 * corrupt data, leftover temp files, the memory store's warning.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import type { TaskReflection } from '../../src/workflows/reflection/task-reflection';
import {
  lookupReflection,
  taskIdentity,
  type ReflectionStore,
  type Warn,
} from '../../src/activities/reflection-store/reflection-store';
import {
  MEMORY_STORE_WARNING,
  createMemoryReflectionStore,
} from '../../src/activities/reflection-store/memory-reflection-store';
import {
  createFileReflectionStore,
  defaultReflectionDirectory,
} from '../../src/activities/reflection-store/file-reflection-store';
import {
  REFLECTION_TABLE,
  createPostgresReflectionStore,
} from '../../src/activities/reflection-store/postgres-reflection-store';
import {
  MISSING_POSTGRES_MESSAGE,
  findPostgresBinaries,
  startPostgresServer,
  type PostgresServer,
} from '../support/postgres-server';

interface Fixture {
  /** A store instance on this fixture's storage; a second call is a "restarted worker". */
  open(): ReflectionStore;
  /** Whether a new instance sees what an earlier one stored. */
  persistent: boolean;
  warnings: string[];
  cleanup(): Promise<void>;
}

function reflection(overrides: Partial<TaskReflection> = {}): TaskReflection {
  return {
    refinedDescription: 'Refined description',
    refinedExpectedOutput: 'Refined expected output',
    observations: ['an observation'],
    suggestions: ['a suggestion'],
    reflectedAt: '2025-05-01T10:00:00.000Z',
    runCount: 1,
    ...overrides,
  };
}

/** Opens a fixture and a store for one test, and closes both when the test ends. */
async function setUp(t: TestContext, makeFixture: () => Promise<Fixture>) {
  const fixture = await makeFixture();
  const stores: ReflectionStore[] = [];
  t.after(async () => {
    for (const store of stores) await store.close?.();
    await fixture.cleanup();
  });
  const open = () => {
    const store = fixture.open();
    stores.push(store);
    return store;
  };
  return { fixture, store: open(), open };
}

function reflectionStoreContract(name: string, makeFixture: () => Promise<Fixture>): void {
  describe(`${name} reflection store contract`, () => {
    test('stores, retrieves and overwrites', async (t) => {
      const { store } = await setUp(t, makeFixture);
      const identity = taskIdentity('write a report');
      const first = reflection();
      await store.store(identity, first);
      assert.deepEqual(await store.retrieve(identity), first);
      const second = reflection({ refinedDescription: 'Better', observations: [], runCount: 2 });
      await store.store(identity, second);
      assert.deepEqual(await store.retrieve(identity), second);
    });

    test('an unknown identity is undefined', async (t) => {
      const { store } = await setUp(t, makeFixture);
      assert.equal(await store.retrieve(taskIdentity('never stored')), undefined);
      assert.equal(await lookupReflection(store, 'never stored'), undefined);
    });

    test('rejects what it could not read back: bad identity, invalid reflection, wrong description', async (t) => {
      const { store } = await setUp(t, makeFixture);
      const identity = taskIdentity('a task');
      await assert.rejects(store.store('../escape', reflection()), TypeError);
      await assert.rejects(store.retrieve('A'.repeat(64)), TypeError);
      await assert.rejects(store.store(identity, reflection({ runCount: 0 })));
      await assert.rejects(
        store.store(identity, reflection(), { taskDescription: 'another task' }),
        TypeError,
      );
      assert.equal(await store.retrieve(identity), undefined);
    });

    test('lists newest first, with descriptions kept across overwrites', async (t) => {
      const { store } = await setUp(t, makeFixture);
      assert.deepEqual(await store.list(), []);
      const older = 'Summarise the logs';
      const newer = 'Triage the inbox';
      const anonymous = taskIdentity('no description given');
      await store.store(taskIdentity(older), reflection({ reflectedAt: '2025-01-01T00:00:00.000Z' }), {
        taskDescription: older,
      });
      await store.store(taskIdentity(newer), reflection({ reflectedAt: '2025-03-01T00:00:00.000Z' }), {
        taskDescription: newer,
      });
      await store.store(anonymous, reflection({ reflectedAt: '2025-02-01T00:00:00.000Z' }));
      // Overwriting without a description keeps the one stored before.
      await store.store(
        taskIdentity(older),
        reflection({ reflectedAt: '2025-01-02T00:00:00.000Z', runCount: 2 }),
      );

      const listed = await store.list();
      assert.deepEqual(
        listed.map((entry) => [entry.taskIdentity, entry.taskDescription, entry.reflection.runCount]),
        [
          [taskIdentity(newer), newer, 1],
          [anonymous, undefined, 1],
          [taskIdentity(older), older, 2],
        ],
      );
    });

    test('finds a reflection by identity or by description', async (t) => {
      const { store } = await setUp(t, makeFixture);
      const description = 'Research AI trends';
      const stored = reflection({ runCount: 3 });
      await store.store(taskIdentity(description), stored, { taskDescription: description });
      assert.deepEqual(await lookupReflection(store, description), {
        taskIdentity: taskIdentity(description),
        reflection: stored,
      });
      assert.deepEqual((await lookupReflection(store, taskIdentity(description)))?.reflection, stored);
    });

    test('concurrent stores of many identities all land intact', async (t) => {
      const { store } = await setUp(t, makeFixture);
      const count = 40;
      const descriptions = Array.from({ length: count }, (_, index) => `task number ${index}`);
      await Promise.all(
        descriptions.map((description, index) =>
          store.store(taskIdentity(description), reflection({ runCount: index + 1 }), {
            taskDescription: description,
          }),
        ),
      );
      const retrieved = await Promise.all(
        descriptions.map((description) => store.retrieve(taskIdentity(description))),
      );
      assert.deepEqual(
        retrieved.map((value) => value?.runCount),
        descriptions.map((_, index) => index + 1),
      );
      assert.equal((await store.list()).length, count);
    });

    test('many concurrent writes to one identity leave one whole, valid value', async (t) => {
      const { store } = await setUp(t, makeFixture);
      const identity = taskIdentity('contended task');
      const writes = Array.from({ length: 30 }, (_, index) =>
        reflection({ runCount: index + 1, observations: [`writer ${index}`, 'x'.repeat(2000)] }),
      );
      await Promise.all(writes.map((value) => store.store(identity, value)));
      const final = await store.retrieve(identity);
      assert.ok(final, 'a value is stored');
      const writer = writes.find((value) => value.runCount === final.runCount);
      assert.deepEqual(final, writer, 'the final value is exactly one of the writes, not a mixture');
      assert.equal((await store.list()).length, 1);
    });

    test('a new instance sees what was stored (worker restart), when the store is persistent', async (t) => {
      const { fixture, store, open } = await setUp(t, makeFixture);
      const identity = taskIdentity('survive a restart');
      await store.store(identity, reflection({ runCount: 2 }), { taskDescription: 'survive a restart' });
      await store.close?.();
      const restarted = open();
      if (fixture.persistent) {
        assert.equal((await restarted.retrieve(identity))?.runCount, 2);
        assert.equal((await restarted.list())[0]?.taskDescription, 'survive a restart');
      } else {
        assert.equal(await restarted.retrieve(identity), undefined);
      }
    });

    test('returned values are copies: mutating them does not change the store', async (t) => {
      const { store } = await setUp(t, makeFixture);
      const identity = taskIdentity('copies');
      const original = reflection();
      await store.store(identity, original);
      original.observations.push('changed after store');
      const retrieved = await store.retrieve(identity);
      assert.ok(retrieved);
      retrieved.suggestions.push('changed after retrieve');
      assert.deepEqual(await store.retrieve(identity), reflection());
    });
  });
}

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

// ---------------------------------------------------------------- postgres

test('missing PostgreSQL binaries fail with one line naming apt-get install postgresql', () => {
  const empty = mkdtempSync(path.join(tmpdir(), 'keel-no-pg-'));
  try {
    for (const options of [{ env: { KEEL_PG_BIN: empty } }, { env: {}, searchRoot: empty }]) {
      assert.throws(
        () => findPostgresBinaries(options),
        (error: Error) => error.message === MISSING_POSTGRES_MESSAGE && !error.message.includes('\n'),
      );
    }
    assert.match(MISSING_POSTGRES_MESSAGE, /apt-get install postgresql/);
  } finally {
    rmSync(empty, { recursive: true, force: true });
  }
});

describe('postgres', () => {
  let server: PostgresServer | undefined;
  before(async () => {
    server = await startPostgresServer(); // fails the suite, never skips it, when PostgreSQL is missing
  });
  after(async () => {
    await server?.stop();
  });

  async function postgresFixture(): Promise<Fixture & { connectionString: string }> {
    if (!server) throw new Error('the PostgreSQL server did not start');
    const connectionString = await server.createDatabase();
    const warnings: string[] = [];
    return {
      connectionString,
      open: () =>
        createPostgresReflectionStore({ connectionString, warn: (message) => warnings.push(message) }),
      persistent: true,
      warnings,
      cleanup: () => Promise.resolve(),
    };
  }

  reflectionStoreContract('postgres', postgresFixture);

  test('a corrupt row is treated as absent with a warning', async (t) => {
    const fixture = await postgresFixture();
    const { store } = await setUp(t, () => Promise.resolve(fixture));
    const healthy = taskIdentity('healthy');
    await store.store(healthy, reflection()); // creates the table
    const corrupt = taskIdentity('corrupt');
    const client = new Client({ connectionString: fixture.connectionString });
    await client.connect();
    try {
      await client.query(
        `INSERT INTO ${REFLECTION_TABLE} (task_identity, reflection) VALUES ($1, $2::jsonb)`,
        [corrupt, JSON.stringify({ runCount: 'many' })],
      );
    } finally {
      await client.end();
    }
    assert.equal(await store.retrieve(corrupt), undefined);
    assert.deepEqual(
      (await store.list()).map((entry) => entry.taskIdentity),
      [healthy],
    );
    assert.equal(fixture.warnings.length, 2);
    assert.ok(fixture.warnings.every((warning) => warning.includes(corrupt) && !warning.includes('\n')));
  });

  test('several workers creating the table at once all succeed', async (t) => {
    if (!server) throw new Error('the PostgreSQL server did not start');
    const connectionString = await server.createDatabase();
    const stores = Array.from({ length: 5 }, () => createPostgresReflectionStore({ connectionString }));
    t.after(async () => {
      for (const store of stores) await store.close?.();
    });
    const results = await Promise.all(stores.map((store) => store.list()));
    assert.deepEqual(results, [[], [], [], [], []]);
  });
});
