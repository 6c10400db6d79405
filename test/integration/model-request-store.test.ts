/**
 * Model requests by reference: the store contract (files, and a real PostgreSQL started for this
 * file), the model activity assembling a request from the store, and goals whose model inputs
 * after the first turn carry only the new messages — also when the store has lost a request.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { ApplicationFailure } from '@temporalio/common';
import { createModelActivities } from '../../src/activities/model/model-activity';
import { createFileModelRequestStore } from '../../src/activities/model/request-store/file-model-request-store';
import { createPostgresModelRequestStore } from '../../src/activities/model/request-store/postgres-model-request-store';
import {
  goalPartOf,
  STORED_REQUEST_VERSION,
  type ModelRequestStore,
  type StoredRequest,
} from '../../src/activities/model/request-store/model-request-store';
import { FailureType } from '../../src/workflows/common/failure-types';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import type { ModelCallInput } from '../../src/workflows/goal/model-turn/call-settings';
import { createHarness, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';
import { findPostgresBinaries, startPostgresServer, type PostgresServer } from '../support/postgres-server';

const READS = 8;

function request(goalId: string, text: string, base?: string): StoredRequest {
  return {
    version: STORED_REQUEST_VERSION,
    goalId,
    ...(base === undefined ? {} : { base }),
    system: 'S',
    tools: [{ name: 'read_file', description: 'd', input_schema: { type: 'object' } }],
    messages: [
      { role: 'user', content: [{ type: 'text', text }] },
      { role: 'assistant', content: [{ type: 'text', text: `answer to ${text}` }] },
    ],
  };
}

let postgres: PostgresServer | undefined;
const stores: Array<{ name: string; open: () => ModelRequestStore }> = [
  {
    name: 'file',
    open: () => createFileModelRequestStore({ directory: tempDirectory('keel-model-requests-') }),
  },
  {
    name: 'postgres',
    open: () => {
      if (postgres === undefined) throw new Error('PostgreSQL did not start');
      return createPostgresModelRequestStore({ connectionString: postgres.connectionString });
    },
  },
];

before(async () => {
  findPostgresBinaries(); // one clear line when PostgreSQL is missing
  postgres = await startPostgresServer();
});

after(async () => {
  await postgres?.stop();
  await stopOwnServer();
});

for (const { name, open } of stores) {
  describe(`the ${name} model request store`, () => {
    test('keeps a request under its content hash, and of each goal only the newest and the one it extended', async () => {
      const store = open();
      try {
        const first = await store.put(request('goal-a', 'one'));
        assert.equal(await store.put(request('goal-a', 'one')), first, 'the same request, the same key');
        assert.deepEqual(await store.get(first), request('goal-a', 'one'));
        const second = await store.put(request('goal-a', 'two', first));
        const third = await store.put(request('goal-a', 'three', second));
        const other = await store.put(request('goal-b', 'one'));
        assert.notEqual(other, first, "another goal's request is its own");
        assert.equal(await store.get(first), undefined, 'two requests back is forgotten');
        assert.ok(await store.get(second), 'the extended one stays for a retried turn');
        assert.ok(await store.get(third));
        assert.ok(await store.get(other), "another goal's requests are not touched");
        for (const key of [
          '',
          '../../etc/passwd',
          `${goalPartOf('goal-a')}/nothex`,
          `${'0'.repeat(32)}/${'0'.repeat(64)}`,
        ]) {
          assert.equal(await store.get(key), undefined, `no request under "${key}"`);
        }
      } finally {
        await store.close();
      }
    });
  });
}

test('the file store forgets goals idle for a week and takes an unreadable file as missing', async () => {
  const directory = tempDirectory('keel-model-requests-');
  const idle = path.join(directory, goalPartOf('idle-goal'));
  const store = createFileModelRequestStore({ directory });
  try {
    const key = await store.put(request('idle-goal', 'old'));
    const weekAgo = (Date.now() - 8 * 24 * 60 * 60 * 1000) / 1000;
    utimesSync(idle, weekAgo, weekAgo);
    writeFileSync(path.join(directory, `${key}.json`), 'not json');
    assert.equal(await store.get(key), undefined);
  } finally {
    await store.close();
  }
  const restarted = createFileModelRequestStore({ directory });
  try {
    await restarted.put(request('busy-goal', 'new'));
    await restarted.close();
    assert.equal(existsSync(idle), false, 'the idle goal is forgotten');
    assert.equal(readdirSync(directory).length, 1);
  } finally {
    await restarted.close();
  }
});

/** A request's blocks without their cache_control marks. */
function withoutCacheMarks(value: unknown): unknown {
  return JSON.parse(JSON.stringify(value ?? null), (key, item: unknown) =>
    key === 'cache_control' ? undefined : item,
  ) as unknown;
}

describe('the model activity', () => {
  let harness: Harness;
  before(async () => {
    harness = await createHarness({
      scenarios: [{ name: 'direct', match: 'DIRECT', turns: [{ text: 'one' }, { text: 'two' }] }],
    });
  });
  after(() => harness.close());

  test('assembles a request from the stored one, and refuses before any model call when it is gone', async () => {
    const requestStore = createFileModelRequestStore({ directory: tempDirectory('keel-model-requests-') });
    const activities = createModelActivities({
      client: new Anthropic({ apiKey: 'k', baseURL: harness.scripted.url, maxRetries: 0 }),
      requestStore,
    });
    const base: Omit<ModelCallInput, 'messages'> = {
      model: { name: 'claude-test', maxTokens: 100 },
      goalId: 'g',
      turn: 1,
    };
    const tools = [{ name: 'read_file', description: 'Reads', input_schema: { type: 'object' as const } }];
    const first = await activities.callModel({
      ...base,
      system: 'SYSTEM',
      tools,
      messages: [{ role: 'user', content: [{ type: 'text', text: 'DIRECT task' }] }],
    });
    assert.ok(first.request);
    const second = await activities.callModel({
      ...base,
      turn: 2,
      continues: { request: first.request },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'go on' }] }],
    });
    assert.deepEqual(second.content, [{ type: 'text', text: 'two' }]);
    const sent = harness.scripted.requests.at(-1)?.body;
    // As sent: with the prompt-cache marks (cache-breakpoints.ts), which the store never keeps.
    assert.deepEqual(sent?.system, [{ type: 'text', text: 'SYSTEM', cache_control: { type: 'ephemeral' } }]);
    assert.deepEqual(withoutCacheMarks(sent?.tools), tools);
    assert.deepEqual(
      sent?.messages?.map((message) => message.role),
      ['user', 'assistant', 'user'],
      'the stored messages, the stored answer, the new message',
    );

    // Segments: the stored task, a changed message in place of the stored answer, a new message.
    const third = await activities.callModel({
      ...base,
      turn: 3,
      continues: { request: first.request, segments: [[0, 1], null, null] },
      messages: [
        { role: 'assistant', content: [{ type: 'text', text: 'a shorter answer' }] },
        { role: 'user', content: [{ type: 'text', text: 'and again' }] },
      ],
    });
    assert.ok(third.request);
    assert.deepEqual(
      harness.scripted.requests
        .at(-1)
        ?.body.messages?.map((message) => JSON.stringify(withoutCacheMarks(message.content))),
      [
        JSON.stringify([{ type: 'text', text: 'DIRECT task' }]),
        JSON.stringify([{ type: 'text', text: 'a shorter answer' }]),
        JSON.stringify([{ type: 'text', text: 'and again' }]),
      ],
    );

    const requestsBefore = harness.scripted.requests.length;
    for (const segments of [[[0, 9], null], [[0, 1]], [null, null]] as const) {
      const error = await activities
        .callModel({
          ...base,
          continues: {
            request: second.request as string,
            segments: segments.map((s) => (s ? [...s] : null)) as never,
          },
          messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }] }],
        })
        .then(
          () => undefined,
          (failure: unknown) => failure,
        );
      assert.ok(
        error instanceof ApplicationFailure && error.type === FailureType.ModelRequestMissing,
        'segments that do not fit',
      );
    }
    for (const continues of [
      { request: `${goalPartOf('g')}/${'a'.repeat(64)}` },
      { request: second.request as string },
    ]) {
      const error = await activities
        .callModel({
          ...base,
          goalId: continues.request === second.request ? 'another goal' : 'g',
          continues,
          messages: [],
        })
        .then(
          () => undefined,
          (failure: unknown) => failure,
        );
      assert.ok(error instanceof ApplicationFailure);
      assert.equal(error.type, FailureType.ModelRequestMissing);
      assert.equal(error.nonRetryable, true);
    }
    assert.equal(harness.scripted.requests.length, requestsBefore, 'nothing reached the model');
    await requestStore.close();
  });
});

describe('a goal', () => {
  let harness: Harness;
  const forgotten: string[] = [];
  before(async () => {
    const files = createFileModelRequestStore({ directory: tempDirectory('keel-model-requests-') });
    // Loses every third request it is asked for, as a store on another machine would not have it.
    let asked = 0;
    const forgetful: ModelRequestStore = {
      description: 'forgetful',
      put: (stored) => files.put(stored),
      async get(key) {
        asked += 1;
        if (asked % 3 !== 0) return files.get(key);
        forgotten.push(key);
        return undefined;
      },
      close: () => files.close(),
    };
    harness = await createHarness({
      modelRequestStore: forgetful,
      scenarios: [
        {
          name: 'reads',
          match: 'GOAL-READS',
          turns: [
            ...Array.from({ length: READS }, (_, index) => ({
              toolCalls: [{ name: 'read_file', input: { path: `note-${index}.txt` } }],
            })),
            { text: 'Read them all.' },
          ],
        },
      ],
    });
  });
  after(() => harness.close());

  test(
    'sends each turn only what is new, and a lost request whole, with one model call per turn',
    { timeout: 120_000 },
    async () => {
      const workspace = tempDirectory('keel-reads-');
      for (let index = 0; index < READS; index += 1) {
        writeFileSync(path.join(workspace, `note-${index}.txt`), `note ${index}: ${'n'.repeat(2_000)}\n`);
      }
      const handle = await harness.client.workflow.start(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId: `reads-by-reference-${Date.now()}`,
        args: [{ goal: 'GOAL-READS: read every note', workspace }],
      });
      const result = await harness.withWorker(() => handle.result());
      assert.equal(result.status, 'completed');
      assert.equal(result.counters.toolCalls, READS);

      // The model saw every request whole, once per turn: no paid call was repeated.
      const requests = harness.scripted.requests.filter((entry) => entry.scenario === 'reads');
      assert.equal(requests.length, READS + 1);
      assert.deepEqual(
        requests.map((entry) => entry.body.messages?.length),
        Array.from({ length: READS + 1 }, (_, index) => 2 * index + 1),
      );
      for (const count of harness.scripted.completedTurnCounts().values()) assert.equal(count, 1);

      // What history holds: each model input after a stored request carries one new message.
      const events = (await handle.fetchHistory()).events ?? [];
      const inputs = events
        .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'callModel')
        .map((event) => {
          const payload = event.activityTaskScheduledEventAttributes?.input?.payloads?.[0];
          return {
            input: JSON.parse(Buffer.from(payload?.data ?? []).toString()) as ModelCallInput,
            bytes: payload?.data?.length ?? 0,
          };
        });
      const missing = events.filter(
        (event) =>
          event.activityTaskFailedEventAttributes?.failure?.applicationFailureInfo?.type ===
          FailureType.ModelRequestMissing,
      );
      assert.ok(forgotten.length >= 2, `the store lost ${forgotten.length} requests`);
      assert.equal(missing.length, forgotten.length, 'each lost request failed its attempt once');
      assert.equal(inputs.length, READS + 1 + forgotten.length, 'and was sent whole once more');
      const byReference = inputs.filter(({ input }) => input.continues !== undefined);
      assert.ok(byReference.length >= READS - forgotten.length, `${byReference.length} by reference`);
      for (const { input } of byReference) {
        assert.equal(input.messages.length, 1, 'only the new tool results travel');
        assert.equal(input.system, undefined, 'the system prompt is the stored one');
        assert.equal(input.tools, undefined, 'so are the tools');
      }
      // Flat: the last by-reference input is no bigger than the first, though the transcript grew.
      const sizes = byReference.map(({ bytes }) => bytes);
      assert.ok(
        (sizes.at(-1) ?? 0) <= (sizes[0] ?? 0) * 1.2,
        `by-reference inputs ${sizes.join(', ')} bytes`,
      );
      const whole = inputs.filter(({ input }) => input.continues === undefined).map(({ bytes }) => bytes);
      assert.ok(Math.max(...whole) > 3 * (sizes.at(-1) ?? 0), `whole inputs ${whole.join(', ')} bytes`);
    },
  );
});
