/**
 * The reflection store contract (test/support/reflection-store-contract.ts) run against a real
 * PostgreSQL server started for this file, then the checks only PostgreSQL can have: corrupt rows,
 * several workers creating the table, missing binaries.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { taskIdentity } from '../../src/activities/reflection-store/reflection-store';
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
import {
  reflection,
  reflectionStoreContract,
  setUp,
  type Fixture,
} from '../support/reflection-store-contract';

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
