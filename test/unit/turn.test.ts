import { test } from 'node:test';
import assert from 'node:assert/strict';
import { goalInputSchema } from '../../src/workflows/goal/lifecycle/input';
import {
  callsToPrepare,
  denialText,
  isQuietForContinueAsNew,
  planTurn,
  toolResultBlocks,
  wasCutByLimit,
} from '../../src/workflows/goal/tool-calls/turn';
import { requiresHumanApproval } from '../../src/workflows/goal/tool-calls/approval-policy';
import type { GoalConfig } from '../../src/workflows/goal/lifecycle/input';
import type { ToolCallRecord } from '../../src/workflows/goal/lifecycle/state';
import type { NamedCall } from '../../src/workflows/goal/tool-calls/call-ids';
import { createToolActivities } from '../../src/activities/tools/tool-activities';
import { createToolRegistry } from '../../src/worker';
import { makeWorkspace } from './tools-test-helpers';

const registry = createToolRegistry({});
const { prepareToolCalls } = createToolActivities({
  registry,
  journalDirectory: makeWorkspace('keel-journal-'),
});

/** planTurn as the workflow runs it: the goal's catalogue, and the worker's answers for its calls. */
async function plan(options: {
  calls: NamedCall[];
  config: GoalConfig;
  toolCallsSoFar: number;
  nowMs: number;
}) {
  const selection = registry.catalogue(options.config.tools);
  assert.ok(selection.ok);
  const calls = callsToPrepare(options.calls, selection.catalogue).map(({ callId, toolUse }) => ({
    callId,
    toolName: toolUse.name,
    input: toolUse.input,
  }));
  const prepared = await prepareToolCalls({ calls, sandbox: options.config.sandbox });
  return planTurn({ ...options, catalogue: selection.catalogue, prepared });
}

const config = (extra: Record<string, unknown> = {}) =>
  goalInputSchema.parse({ goal: 'g', workspace: '/tmp/ws', ...extra });
/** A call as the workflow names it; its id here is both keel's and the model's. */
const use = (id: string, name: string, input: unknown) => ({
  callId: id,
  toolUse: { type: 'tool_use' as const, id, name, input },
});

test('approval: irreversible always waits, read-only never, mutating follows the policy', () => {
  assert.equal(requiresHumanApproval('irreversible', 'auto'), true);
  assert.equal(requiresHumanApproval('irreversible', 'ask'), true);
  assert.equal(requiresHumanApproval('read-only', 'ask'), false);
  assert.equal(requiresHumanApproval('mutating', 'auto'), false);
  assert.equal(requiresHumanApproval('mutating', 'ask'), true);
});

test('planTurn classifies each call and sets an absolute approval deadline', async () => {
  const turn = await plan({
    calls: [
      use('a', 'list_dir', { path: '.' }),
      use('b', 'run_command', { command: 'rm -rf build' }),
      use('c', 'write_file', { path: 'x', content: 'y' }),
    ],
    // With network allowed a command is irreversible: it waits for a human.
    config: config({ limits: { approvalTimeoutMs: 5000 }, sandbox: { network: true } }),
    toolCallsSoFar: 0,
    nowMs: 1_000_000,
  });
  assert.deepEqual(
    turn.map((call) => [call.callId, call.status, call.reversibility]),
    [
      ['a', 'ready', 'read-only'],
      ['b', 'awaiting-approval', 'irreversible'],
      ['c', 'ready', 'mutating'],
    ],
  );
  assert.equal(turn[1]?.approval?.deadlineMs, 1_005_000);
  assert.equal(turn[1]?.summary, 'run_command: rm -rf build');
});

test('invalid input and unknown tools come back as error results without running', async () => {
  const turn = await plan({
    calls: [use('a', 'read_file', { nope: 1 }), use('b', 'teleport', {})],
    config: config(),
    toolCallsSoFar: 0,
    nowMs: 0,
  });
  assert.ok(turn.every((call) => call.status === 'done' && call.result?.isError));
  assert.match(turn[0]?.result?.content ?? '', /Invalid input for read_file/);
  assert.match(turn[1]?.result?.content ?? '', /Unknown tool "teleport"/);
});

test('a goal limited to tools offers and accepts only those', async () => {
  const turn = await plan({
    calls: [use('a', 'run_command', { command: 'ls' })],
    config: config({ tools: ['read_file'] }),
    toolCallsSoFar: 0,
    nowMs: 0,
  });
  assert.match(
    turn[0]?.result?.content ?? '',
    /Unknown tool "run_command": it is not among this goal's tools\.[\s\S]*available tools: read_file\n/,
  );
});

test('calls beyond the tool-call limit are cut and marked', async () => {
  const turn = await plan({
    calls: [use('a', 'list_dir', {}), use('b', 'list_dir', {}), use('c', 'list_dir', {})],
    config: config({ limits: { maxToolCalls: 5 } }),
    toolCallsSoFar: 4,
    nowMs: 0,
  });
  assert.deepEqual(turn.map(wasCutByLimit), [false, true, true]);
  assert.equal(turn[0]?.status, 'ready');
});

test('tool results keep the order of the calls', async () => {
  const turn = await plan({
    calls: [use('a', 'teleport', {}), use('b', 'teleport', {})],
    config: config(),
    toolCallsSoFar: 0,
    nowMs: 0,
  });
  assert.deepEqual(
    toolResultBlocks(turn).map((block) => [block.tool_use_id, block.is_error]),
    [
      ['a', true],
      ['b', true],
    ],
  );
});

test('a denial or a timeout comes back with alternatives that need no approval', () => {
  const selection = registry.catalogue();
  assert.ok(selection.ok);
  const builtins = selection.catalogue;
  const denied = denialText(
    { approved: false, approver: 'ann', reason: 'not today', decidedAt: '', via: 'signal' },
    { reversibility: 'irreversible', toolName: 'run_command' },
    builtins,
  );
  assert.match(denied, /^Not run: denied by ann\. Reason: not today/);
  assert.match(denied, /Candidate next actions:/);
  assert.match(denied, /read-only calls \(list_dir, read_file, search\)/);
  // A denial is no failure to work around: the refused change is not suggested through other tools.
  assert.doesNotMatch(denied, /write_file|edit_file/);
  assert.match(denied, /another tool or a script is the same request/);
  const timedOut = denialText(
    { approved: false, approver: 'keel', reason: 'approval timed out', decidedAt: '', via: 'timeout' },
    { reversibility: 'mutating', toolName: 'run_command' },
    builtins,
  );
  assert.match(timedOut, /^Not run: approval timed out\./);
  assert.match(timedOut, /Explain in your answer what this step would do/);
  for (const text of [denied, timedOut]) assert.equal(text.match(/^\d\. /gm)?.length, 3);
});

test('a turn is carried to a new run only while quiet: a decision that has not moved its call yet keeps it here', () => {
  const waiting = (callId: string, decided: boolean): ToolCallRecord => ({
    callId,
    toolName: 'run_command',
    input: { command: 'echo hi > x' },
    reversibility: 'mutating',
    summary: 'run_command: echo hi > x',
    status: 'awaiting-approval',
    approval: {
      requestedAt: '2026-11-23T00:00:00.000Z',
      deadlineMs: 1,
      ...(decided
        ? {
            decision: {
              approved: true,
              approver: 'ada',
              reason: '',
              decidedAt: '2026-11-23T00:00:01.000Z',
              via: 'signal' as const,
            },
          }
        : {}),
    },
  });
  const done: ToolCallRecord = { ...waiting('c0', false), status: 'done', approval: undefined };
  assert.equal(isQuietForContinueAsNew([waiting('c1', false), done]), true);
  // Approved in this activation: its lane starts the call in the next microtasks.
  assert.equal(isQuietForContinueAsNew([waiting('c1', true)]), false);
  assert.equal(isQuietForContinueAsNew([waiting('c1', false), waiting('c2', true)]), false);
  assert.equal(isQuietForContinueAsNew([waiting('c1', false), { ...done, status: 'running' }]), false);
  assert.equal(isQuietForContinueAsNew([waiting('c1', false), { ...done, status: 'ready' }]), false);
  assert.equal(isQuietForContinueAsNew([done]), false, 'nothing waits: the loop top continues as new');
});
