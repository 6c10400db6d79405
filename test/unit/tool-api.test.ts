import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import {
  defineTool,
  ToolDefinitionError,
  type ToolExecutionContext,
} from '../../src/activities/tools/define-tool';
import { createToolActivities } from '../../src/activities/tools/tool-activities';
import { createToolRegistry } from '../../src/worker';
import { makeWorkspace } from './tools-test-helpers';

const echo = defineTool({
  name: 'echo',
  description: 'Echo the text back.',
  input: z.object({ text: z.string() }),
  reversibility: 'read-only',
  execute: async (input) => Promise.resolve(input.text),
});

test('defineTool refuses what the model API or keel would refuse, naming the tool', () => {
  const base = {
    description: 'd',
    input: z.object({}),
    reversibility: 'read-only' as const,
    execute: async () => Promise.resolve(''),
  };
  assert.throws(() => defineTool({ ...base, name: 'has space' }), /tool name "has space" is not allowed/);
  assert.throws(() => defineTool({ ...base, name: 'x'.repeat(65) }), ToolDefinitionError);
  assert.throws(() => defineTool({ ...base, name: 'ok', description: ' ' }), /tool "ok" has no description/);
  assert.throws(
    () => defineTool({ ...base, name: 'ok', reversibility: 'harmless' as never }),
    /tool "ok" has reversibility "harmless"/,
  );
  assert.throws(() => defineTool({ ...base, name: 'ok', timeoutMs: 0 }), /timeoutMs 0/);
});

test('the registry refuses duplicates and schemas that do not convert, at worker start', () => {
  const readFile = defineTool({ ...echo, name: 'read_file' });
  assert.throws(
    () => createToolRegistry({ tools: [readFile] }),
    /tool "read_file" is registered twice \(builtin and worker\)/,
  );
  const dated = defineTool({
    name: 'dated',
    description: 'Has a date.',
    input: z.object({ when: z.date() }),
    reversibility: 'read-only',
    execute: async () => Promise.resolve(''),
  });
  assert.throws(
    () => createToolRegistry({ tools: [dated] }),
    /tool "dated": its input schema cannot be converted/,
  );
  const scalar = defineTool({ ...echo, name: 'scalar', input: z.string() as never });
  assert.throws(
    () => createToolRegistry({ tools: [scalar] }),
    /tool "scalar": its input schema must be a z\.object/,
  );
});

test('a goal picks tools by glob; a glob that matches nothing is one clear error', async () => {
  const registry = createToolRegistry({ tools: [echo], builtinTools: true });
  const picked = registry.catalogue(['read_*', 'echo']);
  assert.ok(picked.ok);
  assert.deepEqual(
    picked.catalogue.map((entry) => [entry.name, entry.source]),
    [
      ['read_file', 'builtin'],
      ['echo', 'worker'],
    ],
  );
  const { describeTools } = createToolActivities({
    registry,
    journalDirectory: makeWorkspace('keel-journal-'),
  });
  await assert.rejects(
    describeTools({ patterns: ['github__*'] }),
    (error: Error & { type?: string; nonRetryable?: boolean }) => {
      assert.match(error.message, /no tool matches "github__\*"; this worker has: read_file, .*echo/);
      assert.equal(error.type, 'UnknownTools');
      assert.equal(error.nonRetryable, true);
      return true;
    },
  );
  assert.deepEqual(createToolRegistry({ builtinTools: false, tools: [echo] }).names(), ['echo']);
});

function activitiesWith(...tools: Parameters<typeof createToolRegistry>[0]['tools'] & object) {
  const workspace = makeWorkspace();
  const { executeTool, prepareToolCalls } = createToolActivities({
    registry: createToolRegistry({ tools, builtinTools: false }),
    journalDirectory: makeWorkspace('keel-journal-'),
  });
  const run = (
    toolName: string,
    input: unknown,
    reversibility: 'read-only' | 'mutating' | 'irreversible' = 'read-only',
  ) =>
    executeTool({
      toolName,
      input,
      workspace,
      callId: 'c1',
      idempotencyKey: 'goal-1/c1',
      reversibility,
      // As the workflow sends them: an irreversible call reaches the worker once approved.
      approved: reversibility === 'irreversible',
    });
  return { run, prepareToolCalls };
}

test("execute may return text, JSON or an outcome, or throw; failures carry the tool's own next actions", async () => {
  const lookup = defineTool({
    name: 'lookup',
    description: 'Look something up.',
    input: z.object({ key: z.string() }),
    reversibility: 'read-only',
    execute: async (input) => {
      if (input.key === 'boom') throw new Error('the backend is down');
      if (input.key === 'missing') return { ok: false, content: 'no such key', candidates: [], facts: {} };
      return Promise.resolve({ key: input.key, value: 42 });
    },
    nextActionsOnFailure: ({ input, error }) => [
      `lookup {"key":"${input.key}"} again later${error ? ' (the backend failed)' : ''}`,
      'list the keys first',
    ],
  });
  const { run } = activitiesWith(echo, lookup);
  assert.deepEqual(await run('echo', { text: 'hi' }), { ok: true, content: 'hi', candidates: [], facts: {} });
  const json = await run('lookup', { key: 'a' });
  assert.deepEqual(JSON.parse(json.content), { key: 'a', value: 42 });
  const thrown = await run('lookup', { key: 'boom' });
  assert.equal(thrown.ok, false);
  assert.equal(thrown.content, 'lookup failed: the backend is down');
  assert.deepEqual(thrown.candidates, [
    'lookup {"key":"boom"} again later (the backend failed)',
    'list the keys first',
  ]);
  const missing = await run('lookup', { key: 'missing' });
  assert.equal(missing.content, 'no such key');
  assert.deepEqual(missing.candidates, ['lookup {"key":"missing"} again later', 'list the keys first']);
  const generic = await run('echo', { text: 3 });
  assert.equal(generic.ok, false);
  assert.match(generic.content, /Invalid input for echo: text: /);
});

test('irreversible calls get the idempotency key and run at most once; others get none', async () => {
  const seen: Array<Pick<ToolExecutionContext, 'idempotencyKey' | 'reversibility' | 'network'>> = [];
  const pay = defineTool({
    name: 'pay',
    description: 'Pay an amount.',
    input: z.object({ amount: z.number() }),
    reversibility: (input) => (input.amount > 10 ? 'irreversible' : 'mutating'),
    execute: async (_input, context) => {
      seen.push({
        idempotencyKey: context.idempotencyKey,
        reversibility: context.reversibility,
        network: context.network,
      });
      return Promise.resolve('paid');
    },
  });
  const { run } = activitiesWith(pay);
  assert.equal((await run('pay', { amount: 5 }, 'mutating')).ok, true);
  assert.equal((await run('pay', { amount: 50 }, 'irreversible')).ok, true);
  // A retry of the same call (same idempotency key) gets the recorded result, not a second payment.
  const again = await run('pay', { amount: 50 }, 'irreversible');
  assert.equal(again.ok, true);
  assert.match(again.content, /^\(Not run again: an earlier attempt of this irreversible call finished at /);
  assert.deepEqual(seen, [
    { idempotencyKey: undefined, reversibility: 'mutating', network: false },
    { idempotencyKey: 'goal-1/c1', reversibility: 'irreversible', network: false },
  ]);
});

test('a per-call tier comes with its reason; a tier function that fails makes the call irreversible', async () => {
  const risky = defineTool({
    name: 'risky',
    description: 'A tool whose tier function can fail.',
    input: z.object({ n: z.number() }),
    reversibility: (input) => {
      if (input.n < 0) throw new Error('negative');
      return { tier: 'mutating', reason: `n is ${input.n}` };
    },
    execute: async () => Promise.resolve('ok'),
  });
  const { prepareToolCalls } = activitiesWith(risky);
  const [fine, failing] = await prepareToolCalls({
    calls: [
      { callId: 'a', toolName: 'risky', input: { n: 1 } },
      { callId: 'b', toolName: 'risky', input: { n: -1 } },
    ],
  });
  assert.deepEqual(fine, {
    ok: true,
    callId: 'a',
    input: { n: 1 },
    tier: 'mutating',
    reason: 'n is 1',
    summary: 'risky: {"n":1}',
  });
  assert.ok(failing?.ok);
  assert.equal(failing.tier, 'irreversible');
  assert.match(failing.reason ?? '', /tier function failed \(negative\)/);
});
