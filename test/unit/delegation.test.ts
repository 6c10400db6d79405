import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  childTools,
  childCallLimit,
  childWorkflowId,
  delegationSettingsSchema,
  mayDelegate,
  mayStartChild,
  reservationOf,
  sliceBudget,
  spentWithReservations,
  type RunningChild,
} from '../../src/workflows/delegation/delegation';
import {
  checkHarnessCall,
  modelToolDefinitions,
  offeredHarnessTools,
} from '../../src/workflows/tools/harness-tools';
import type { ToolCatalogue } from '../../src/workflows/tools/tool-catalogue';

const entry = (name: string, tier: ToolCatalogue[number]['tier']): ToolCatalogue[number] => ({
  name,
  description: name,
  inputSchema: { type: 'object' },
  tier,
  source: 'builtin',
});
const catalogue: ToolCatalogue = [
  entry('read_file', { kind: 'fixed', tier: 'read-only' }),
  entry('list_dir', { kind: 'fixed', tier: 'read-only' }),
  entry('write_file', { kind: 'fixed', tier: 'mutating' }),
  entry('run_command', { kind: 'per-call' }),
];

test('a goal may delegate when asked to and while below the depth limit', () => {
  const settings = (input: object) => delegationSettingsSchema.parse(input);
  assert.equal(mayDelegate(undefined), false);
  assert.equal(mayDelegate(settings({})), false, 'off unless asked for');
  assert.equal(mayDelegate(settings({ enabled: true })), true);
  assert.equal(mayDelegate(settings({ enabled: true, depth: 1 })), true, 'depth 1 of the default 2');
  assert.equal(mayDelegate(settings({ enabled: true, depth: 2 })), false);
  assert.equal(mayDelegate(settings({ enabled: true, maxDepth: 1, depth: 1 })), false);
  assert.deepEqual(offeredHarnessTools({ planning: false, delegate: true }), ['delegate']);
  assert.deepEqual(
    modelToolDefinitions(catalogue, { planning: true, delegate: true })
      .map((tool) => tool.name)
      .slice(-2),
    ['report_step', 'delegate'],
  );
});

test("a child gets only its parent's tools, and a read-only child only tools that cannot write", () => {
  assert.deepEqual(childTools(catalogue, { workspace: 'shared' }), {
    ok: true,
    names: ['read_file', 'list_dir', 'write_file', 'run_command'],
  });
  assert.deepEqual(childTools(catalogue, { workspace: 'shared', tools: ['write_file', 'read_file'] }), {
    ok: true,
    names: ['read_file', 'write_file'],
  });
  const unknown = childTools(catalogue, { workspace: 'shared', tools: ['read_file', 'deploy'] });
  assert.equal(unknown.ok, false);
  assert.match(unknown.ok ? '' : unknown.error, /^Not your tools: deploy\./);
  assert.deepEqual(childTools(catalogue, { workspace: 'read-only' }), {
    ok: true,
    names: ['read_file', 'list_dir'],
  });
  // A tool whose tier depends on its input may write: not for a read-only child.
  const writing = childTools(catalogue, { workspace: 'read-only', tools: ['read_file', 'run_command'] });
  assert.match(
    writing.ok ? '' : writing.error,
    /cannot have tools that may change the workspace: run_command\./,
  );
  const none = childTools([catalogue[2]!], { workspace: 'read-only' });
  assert.equal(none.ok, false);
});

test('a budget slice lowers the limits left to the parent and never raises them', () => {
  const carved = { maxUsd: 1.5, maxTokens: 40_000, maxToolCalls: 10, maxWallTimeMs: 60_000, warnAt: [0.8] };
  assert.deepEqual(sliceBudget(carved, { maxUsd: 0.5, maxToolCalls: 20 }), { ...carved, maxUsd: 0.5 });
  assert.deepEqual(sliceBudget(carved, {}), carved);
  assert.deepEqual(sliceBudget(undefined, {}), undefined, 'no budget to carve and no slice: none');
  assert.deepEqual(sliceBudget(undefined, { maxTokens: 500 }), { maxTokens: 500, warnAt: [] });
  assert.notEqual(sliceBudget(carved, {})?.warnAt, carved.warnAt, 'a copy, not the parent’s array');
});

test('running children hold their budgets: a child about to start sees them as spent', () => {
  const child = (workspace: 'shared' | 'read-only', usd: number): RunningChild => ({
    callId: 'c',
    workflowId: 'w',
    task: 't',
    workspace,
    reserved: reservationOf({ maxUsd: usd, maxToolCalls: 3, warnAt: [] }),
  });
  assert.deepEqual(reservationOf(undefined), { tokens: 0, usd: 0, toolCalls: 0 });
  const spent = spentWithReservations({ tokens: 10, usd: 0.25, toolCalls: 1, wallTimeMs: 5 }, [
    child('shared', 0.5),
    child('read-only', 0.25),
  ]);
  assert.deepEqual(spent, { tokens: 10, usd: 1, toolCalls: 7, wallTimeMs: 5 });
});

test('children start while places are free; a writer never runs beside another writer', () => {
  const running = (...workspaces: Array<'shared' | 'read-only' | 'copy'>): RunningChild[] =>
    workspaces.map((workspace) => ({
      callId: 'c',
      workflowId: 'w',
      task: 't',
      workspace,
      reserved: { tokens: 0, usd: 0, toolCalls: 0 },
    }));
  assert.equal(mayStartChild(running(), 'shared', 1), true);
  assert.equal(mayStartChild(running('read-only'), 'read-only', 1), false, 'at maxConcurrent');
  assert.equal(mayStartChild(running('read-only', 'read-only'), 'read-only', 3), true);
  assert.equal(mayStartChild(running('read-only'), 'shared', 3), true, 'a writer beside readers');
  assert.equal(mayStartChild(running('shared'), 'read-only', 3), true, 'a reader beside a writer');
  assert.equal(mayStartChild(running('read-only', 'shared'), 'shared', 3), false);
  // A child on its own copy races nobody: it runs beside writers, and writers beside it.
  assert.equal(mayStartChild(running('shared'), 'copy', 3), true, 'a copy beside a writer');
  assert.equal(mayStartChild(running('copy', 'copy'), 'shared', 3), true, 'a writer beside copies');
  assert.equal(mayStartChild(running('copy', 'copy'), 'copy', 2), false, 'at maxConcurrent');
  assert.equal(childWorkflowId('goal-1', 3), 'goal-1-delegate-3');
});

test('a delegate call is checked before it runs: every field, with defaults filled in', () => {
  const ok = checkHarnessCall('delegate', { task: 'survey the docs', workspace: 'read-only' });
  assert.deepEqual(ok, {
    ok: true,
    input: { task: 'survey the docs', workspace: 'read-only', successCriteria: [], budget: {} },
    summary: 'delegate (read-only): survey the docs',
  });
  const bad = checkHarnessCall('delegate', { task: '', budget: { maxUsd: -1 }, extra: 1 });
  assert.match(bad.ok ? '' : bad.error, /^Invalid input for delegate: task: .*budget\.maxUsd: .*\(input\): /);
  // A folder: only with a copy, and only inside the workspace.
  const folder = checkHarnessCall('delegate', {
    task: 'fix the api',
    workspace: 'copy',
    folder: 'services/api',
  });
  assert.equal(folder.ok ? folder.summary : folder.error, 'delegate (copy of services/api): fix the api');
  for (const [input, problem] of [
    [{ workspace: 'shared', folder: 'src' }, /folder: folder needs workspace "copy"/],
    [{ workspace: 'copy', folder: '../etc' }, /folder: folder must be a folder inside your workspace/],
    [{ workspace: 'copy', folder: '/etc' }, /folder: folder must be a folder inside your workspace/],
    [{ workspace: 'copy', folder: './.' }, /folder: folder must be a folder inside your workspace/],
  ] as const) {
    const refused = checkHarnessCall('delegate', { task: 't', ...input });
    assert.match(refused.ok ? '' : refused.error, problem, JSON.stringify(input));
  }
});

test("a child's tool-call limit is what is left of the tree's, running siblings' holds set aside, cut to its slice", () => {
  const held = (heldCalls?: number): RunningChild => ({
    callId: 'c',
    workflowId: 'w',
    task: 't',
    workspace: 'read-only',
    reserved: { tokens: 0, usd: 0, toolCalls: 0 },
    ...(heldCalls === undefined ? {} : { heldCalls }),
  });
  const base = { limit: 20, ownCalls: 5, endedChildrenCalls: 3, running: [], slice: undefined };
  assert.equal(childCallLimit(base), 12);
  assert.equal(
    childCallLimit({ ...base, running: [held(4), held(), held(2)] }),
    6,
    'a hold from an older state is none',
  );
  assert.equal(childCallLimit({ ...base, slice: 7 }), 7);
  assert.equal(childCallLimit({ ...base, slice: 30 }), 12, 'a slice never raises it');
  assert.equal(childCallLimit({ ...base, running: [held(15)] }), 0, 'nothing left: never below 0');
});
