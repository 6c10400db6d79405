import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import {
  ReflectionFailureType,
  createReflectionActivities,
} from '../../src/activities/reflection/reflection-activities';
import { createMemoryReflectionStore } from '../../src/activities/reflection-store/memory-reflection-store';
import { taskIdentity, type ReflectionStore } from '../../src/activities/reflection-store/reflection-store';
import type { TaskReflection } from '../../src/workflows/reflection/task-reflection';

const description = 'Research AI trends and write a report';

const reflection: TaskReflection = {
  refinedDescription: 'Research the three most cited AI trends of the year and write a report.',
  refinedExpectedOutput: 'Markdown with exactly three sections.',
  observations: ['The first run listed eight trends.'],
  suggestions: ['Cap the list at three.'],
  reflectedAt: '2025-03-01T12:00:00.000Z',
  runCount: 1,
};

function memoryStore(): ReflectionStore {
  return createMemoryReflectionStore({ warn: () => {} });
}

test('loading before any reflection gives the identity and no reflection', async () => {
  const activities = createReflectionActivities({ store: memoryStore() });
  const loaded = await activities.loadTaskReflection({ description });
  assert.deepEqual(loaded, { taskIdentity: taskIdentity(description) });
  assert.equal('reflection' in loaded, false, 'no undefined key in the payload');
});

test('a stored reflection is loaded back under the SHA-256 of the description', async () => {
  const store = memoryStore();
  const activities = createReflectionActivities({ store });
  const stored = await activities.storeTaskReflection({ description, reflection });
  const expectedIdentity = taskIdentity(description);
  assert.deepEqual(stored, { taskIdentity: expectedIdentity });
  assert.match(expectedIdentity, /^[0-9a-f]{64}$/);

  assert.deepEqual(await activities.loadTaskReflection({ description }), {
    taskIdentity: expectedIdentity,
    reflection,
  });
  // Another description is another task.
  assert.equal(
    (await activities.loadTaskReflection({ description: `${description}.` })).reflection,
    undefined,
  );
});

test('storing keeps the description for `keel reflections`', async () => {
  const store = memoryStore();
  await createReflectionActivities({ store }).storeTaskReflection({ description, reflection });
  const [entry, ...rest] = await store.list();
  assert.equal(rest.length, 0);
  assert.equal(entry?.taskDescription, description);
  assert.equal(entry?.taskIdentity, taskIdentity(description));
});

test('a later store replaces the earlier reflection', async () => {
  const store = memoryStore();
  const activities = createReflectionActivities({ store });
  await activities.storeTaskReflection({ description, reflection });
  const second = { ...reflection, runCount: 2, reflectedAt: '2025-03-02T12:00:00.000Z', suggestions: [] };
  await activities.storeTaskReflection({ description, reflection: second });
  assert.deepEqual((await activities.loadTaskReflection({ description })).reflection, second);
  assert.equal((await store.list()).length, 1);
});

test('an invalid reflection is a non-retryable InvalidReflection failure and nothing is stored', async () => {
  const store = memoryStore();
  const activities = createReflectionActivities({ store });
  const invalid = [
    { ...reflection, runCount: 0 },
    { ...reflection, reflectedAt: 'yesterday' },
    { ...reflection, observations: 'not a list' },
  ] as unknown as TaskReflection[];
  for (const candidate of invalid) {
    await assert.rejects(
      activities.storeTaskReflection({ description, reflection: candidate }),
      (error: unknown) => {
        assert.ok(error instanceof ApplicationFailure);
        assert.equal(error.type, ReflectionFailureType.InvalidReflection);
        assert.equal(error.nonRetryable, true);
        assert.match(error.message, /^invalid task reflection: /);
        return true;
      },
    );
  }
  assert.deepEqual(await store.list(), []);
});

test('store I/O errors are thrown as they are, so Temporal retries them', async () => {
  const diskFull = new Error('ENOSPC: no space left on device');
  const failing: ReflectionStore = {
    store: () => Promise.reject(diskFull),
    retrieve: () => Promise.reject(diskFull),
    list: () => Promise.resolve([]),
  };
  const activities = createReflectionActivities({ store: failing });
  await assert.rejects(activities.storeTaskReflection({ description, reflection }), (error: unknown) => {
    assert.equal(error, diskFull);
    assert.equal(error instanceof ApplicationFailure, false);
    return true;
  });
  await assert.rejects(
    activities.loadTaskReflection({ description }),
    (error: unknown) => error === diskFull,
  );
});
