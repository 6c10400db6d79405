/**
 * One contract suite for every ReflectionStore, run by test/integration/reflection-store-*.test.ts
 * against memory, file (temp directory) and a real PostgreSQL server.
 */
import { describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { TaskReflection } from '../../src/workflows/reflection/task-reflection';
import {
  lookupReflection,
  taskIdentity,
  type ReflectionStore,
} from '../../src/activities/reflection-store/reflection-store';

export interface Fixture {
  /** A store instance on this fixture's storage; a second call is a "restarted worker". */
  open(): ReflectionStore;
  /** Whether a new instance sees what an earlier one stored. */
  persistent: boolean;
  warnings: string[];
  cleanup(): Promise<void>;
}

export function reflection(overrides: Partial<TaskReflection> = {}): TaskReflection {
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
export async function setUp(t: TestContext, makeFixture: () => Promise<Fixture>) {
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

export function reflectionStoreContract(name: string, makeFixture: () => Promise<Fixture>): void {
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
