import { test } from 'node:test';
import assert from 'node:assert/strict';
import { z } from 'zod';
import { defineTool } from '../../src/activities/tools/define-tool';
import { createToolActivities } from '../../src/activities/tools/tool-activities';
import { createToolRegistry } from '../../src/worker';
import { goalInputSchema } from '../../src/workflows/goal/lifecycle/input';
import { planTurn } from '../../src/workflows/goal/tool-calls/turn';
import { splitPreparation } from '../../src/workflows/goal/tool-calls/prepared-calls';
import { makeWorkspace } from './tools-test-helpers';

const sendInvoice = defineTool({
  name: 'send_invoice',
  description: 'Sends an invoice.',
  input: z.object({ customer: z.string() }),
  reversibility: 'irreversible',
  summarize: (input) => `send_invoice: ${input.customer}`,
  execute: () => Promise.resolve('sent'),
});
const registry = createToolRegistry({ tools: [sendInvoice] });
const selection = registry.catalogue(undefined);
assert.ok(selection.ok);
const catalogue = selection.catalogue;
/** A call as the workflow names it; its id here is both keel's and the model's. */
const use = (id: string, name: string, input: unknown) => ({
  callId: id,
  toolUse: { type: 'tool_use' as const, id, name, input },
});
const idsOf = (calls: ReadonlyArray<{ callId: string }>) => calls.map((call) => call.callId);

test('reads are prepared by the workflow, with the catalogue tier and a label of their input', () => {
  const { prepared, forWorker } = splitPreparation({
    calls: [
      use('a', 'read_file', { path: 'src/app.ts', hypothesis: 'I expect an export' }),
      use('b', 'list_dir', {}),
      use('c', 'search', { pattern: 'TODO', path: 'src' }),
    ],
    catalogue,
    approvalPolicy: 'auto',
  });
  assert.deepEqual(forWorker, []);
  assert.deepEqual(prepared, [
    {
      ok: true,
      callId: 'a',
      input: { path: 'src/app.ts', hypothesis: 'I expect an export' },
      tier: 'read-only',
      summary: 'read_file: src/app.ts',
    },
    { ok: true, callId: 'b', input: {}, tier: 'read-only', summary: 'list_dir' },
    {
      ok: true,
      callId: 'c',
      input: { pattern: 'TODO', path: 'src' },
      tier: 'read-only',
      summary: 'search: src pattern="TODO"',
    },
  ]);
});

test('calls that wait for a human, and per-call tiers, stay with the worker', () => {
  const calls = [
    use('write', 'write_file', { path: 'a.txt', content: 'x' }),
    use('command', 'run_command', { command: 'ls' }),
    use('invoice', 'send_invoice', { customer: 'ACME' }),
    use('read', 'read_file', { path: 'a.txt' }),
  ];
  const auto = splitPreparation({ calls, catalogue, approvalPolicy: 'auto' });
  assert.deepEqual(idsOf(auto.prepared), ['write', 'read']);
  assert.deepEqual(idsOf(auto.forWorker), ['command', 'invoice']);
  // Under `ask` a write waits for a human: the worker checks it.
  const ask = splitPreparation({ calls, catalogue, approvalPolicy: 'ask' });
  assert.deepEqual(idsOf(ask.prepared), ['read']);
  assert.deepEqual(idsOf(ask.forWorker), ['write', 'command', 'invoice']);
});

test('the tier the workflow takes from the catalogue is the one the worker decides', async () => {
  const { prepareToolCalls } = createToolActivities({
    registry,
    journalDirectory: makeWorkspace('keel-journal-'),
  });
  const calls = [
    use('a', 'read_file', { path: 'a.txt' }),
    use('b', 'list_dir', { path: '.' }),
    use('c', 'search', { pattern: 'x' }),
    use('d', 'write_file', { path: 'a.txt', content: 'x' }),
    use('e', 'edit_file', { path: 'a.txt', oldString: 'x', newString: 'y' }),
  ];
  const { prepared } = splitPreparation({ calls, catalogue, approvalPolicy: 'auto' });
  const checked = await prepareToolCalls({
    calls: calls.map(({ callId, toolUse }) => ({ callId, toolName: toolUse.name, input: toolUse.input })),
  });
  const tiers = (calls: typeof prepared) =>
    calls.map((call) => (call.ok ? call.tier : `refused: ${call.error}`));
  assert.equal(prepared.length, calls.length);
  assert.deepEqual(tiers(prepared), tiers(checked));
});

test('an invalid read prepared by the workflow runs, and the tool answers with what to correct', async () => {
  const workspace = makeWorkspace();
  const config = goalInputSchema.parse({ goal: 'g', workspace });
  const calls = [use('bad', 'read_file', { offset: 2 })];
  const { prepared } = splitPreparation({ calls, catalogue, approvalPolicy: 'auto' });
  const [call] = planTurn({ calls, config, catalogue, prepared, toolCallsSoFar: 0, nowMs: 0 });
  assert.equal(call?.status, 'ready');
  const { executeTool } = createToolActivities({
    registry,
    journalDirectory: makeWorkspace('keel-journal-'),
  });
  const outcome = await executeTool({
    toolName: 'read_file',
    input: call.input,
    workspace,
    callId: call.callId,
    idempotencyKey: `goal/${call.callId}`,
    reversibility: call.reversibility,
  });
  assert.equal(outcome.ok, false);
  assert.match(outcome.content, /Invalid input for read_file: path/);
  assert.match(outcome.candidates.join('\n'), /read_file accepts: path \(required\)/);
});
