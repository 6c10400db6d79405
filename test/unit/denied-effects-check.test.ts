import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  deniedEffectFor,
  deniedEffectPaths,
  holdForDeniedEffects,
} from '../../src/workflows/goal/tool-calls/denied-effects-check';
import { newGoalState } from '../../src/workflows/goal/lifecycle/start';
import type { GoalState, ToolCallRecord } from '../../src/workflows/goal/lifecycle/state';
import { rememberDenial } from '../../src/workflows/goal/tool-calls/remembered-denials';
import { intentOf } from '../../src/workflows/principles/call-intent';
import { initialGuardsState } from '../../src/workflows/principles/guards';

/**
 * Issue 44: after a human denied `rm -rf build`, write_file and edit_file emptied build/ unasked
 * (the default policy runs them without a human). The check holds such a call for a human, with a
 * reason naming what was refused, and leaves every other call as it was.
 */

const NOW = Date.UTC(2030, 0, 1);

function stateAfterDenying(command: string): GoalState {
  const state = newGoalState({ goal: 'g', workspace: '/w' });
  state.guards = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  state.guards.denied.push({ intent: intentOf('run_command', { command }), denials: 1 });
  return state;
}

const call = (toolName: string, input: unknown, overrides: Partial<ToolCallRecord> = {}): ToolCallRecord => ({
  callId: 'c1',
  toolName,
  input,
  reversibility: 'mutating',
  summary: `${toolName}: ${JSON.stringify(input)}`,
  status: 'ready',
  ...overrides,
});

test('a write_file emptying a file a denied deletion covers waits for a human, saying what was refused', () => {
  const state = stateAfterDenying('rm -rf build');
  const emptying = call('write_file', { path: 'build/a.txt', content: '' });
  assert.equal(holdForDeniedEffects(emptying, state, NOW), true);
  assert.equal(emptying.status, 'awaiting-approval');
  assert.deepEqual(emptying.approval, {
    requestedAt: new Date(NOW).toISOString(),
    deadlineMs: NOW + state.config.limits.approvalTimeoutMs,
  });
  assert.equal(
    emptying.tierReason,
    'it would delete or overwrite build/a.txt, which a human refused (run_command on build): a denial covers those effects through any tool',
  );
  assert.equal(emptying.reversibility, 'mutating', 'its tier is its own; only the wait is added');
});

test('calls that touch nothing denied, reads, keel bookkeeping and calls already waiting or done are left alone', () => {
  const state = stateAfterDenying('rm -rf build');
  const untouched = [
    call('write_file', { path: 'src/a.txt', content: '' }),
    call('read_file', { path: 'build/a.txt' }, { reversibility: 'read-only' }),
    call('run_command', { command: 'cat build/a.txt' }),
    call('run_command', { command: 'rm -rf build' }, { reversibility: 'read-only' }),
    call('report_step', { path: 'build' }),
    call('write_file', { path: 'build/a.txt', content: '' }, { status: 'done' }),
  ];
  for (const each of untouched) {
    const before = structuredClone(each);
    assert.equal(holdForDeniedEffects(each, state, NOW), false, each.summary);
    assert.deepEqual(each, before, each.summary);
  }
  const waiting = call(
    'write_file',
    { path: 'build/a.txt', content: '' },
    {
      status: 'awaiting-approval',
      approval: { requestedAt: 'then', deadlineMs: 1 },
    },
  );
  assert.equal(holdForDeniedEffects(waiting, state, NOW), false);
  assert.deepEqual(waiting.approval, { requestedAt: 'then', deadlineMs: 1 });
});

test('a goal with no denials, or whose guards kept none, holds nothing', () => {
  const state = newGoalState({ goal: 'g', workspace: '/w' });
  delete state.guards;
  assert.equal(
    holdForDeniedEffects(call('write_file', { path: 'build/a.txt', content: '' }), state, NOW),
    false,
  );
  const noEffects = stateAfterDenying('curl https://example.com');
  assert.equal(
    holdForDeniedEffects(call('run_command', { command: 'curl https://example.com' }), noEffects, NOW),
    false,
    'intents without effects are matched by their text where they are asked for, not here',
  );
});

test('respellings are held: a python, node or perl one-liner deleting the denied directory', () => {
  const state = stateAfterDenying('rm -rf build');
  for (const command of [
    'python3 -c "import shutil; shutil.rmtree(\'build\')"',
    "node -e \"require('fs').rmSync('build', {recursive: true})\"",
    'perl -e \'use File::Path; rmtree("build")\'',
    ': > build/a.txt',
  ]) {
    const respelled = call('run_command', { command });
    assert.equal(holdForDeniedEffects(respelled, state, NOW), true, command);
    assert.equal(respelled.status, 'awaiting-approval', command);
  }
});

test('remembered denials ("do not ask again") count, with the changes their layer held; the newest match wins', () => {
  const state = newGoalState({ goal: 'g', workspace: '/w' });
  const held = {
    callId: 'c0',
    toolName: 'run_command',
    input: { command: 'python3 clean.py' },
    summary: 'run_command: python3 clean.py',
    escalation: { changes: { created: [], modified: [], deleted: ['out/report.txt'] } },
  };
  const decision = { approver: 'ann', reason: 'keep it', decidedAt: 'then', via: 'signal' };
  state.rememberedDenials = rememberDenial([], held, decision);
  const match = deniedEffectFor(state, { toolName: 'edit_file', input: { path: 'out/report.txt' } });
  assert.deepEqual(match?.overlap, ['out/report.txt']);
  assert.equal(match?.intent.tool, 'run_command');
  state.guards = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  state.guards.denied.push({ intent: intentOf('write_file', { path: 'out', content: '' }), denials: 1 });
  assert.equal(
    deniedEffectFor(state, { toolName: 'edit_file', input: { path: 'out/report.txt' } })?.intent.tool,
    'write_file',
    'the guards’ newest denial is looked at first',
  );
  assert.equal(deniedEffectFor(state, { toolName: 'edit_file', input: { path: 'src/x.ts' } }), undefined);
});

test('a denial and a later write are compared as places in the workspace, however each is spelled', () => {
  // `cd /w && rm -rf build` recorded `/w/build`; the file tools take `build/a.txt`, and resolve `..`
  const absolute = stateAfterDenying('cd /w && rm -rf build');
  for (const path of ['build/a.txt', 'src/../build/a.txt', './src/../build', '/w/build/b.txt']) {
    const write = call('write_file', { path, content: '' });
    assert.equal(holdForDeniedEffects(write, absolute, NOW), true, path);
  }
  const relative = stateAfterDenying('rm -rf build');
  assert.equal(
    holdForDeniedEffects(call('write_file', { path: 'src/../build/a.txt', content: '' }), relative, NOW),
    true,
  );
  assert.equal(
    holdForDeniedEffects(call('write_file', { path: '/w/build/a.txt', content: '' }), relative, NOW),
    true,
  );
  for (const path of ['src/build/a.txt', 'build/../src/a.txt', '/other/build/a.txt', '/w2/build/a.txt'])
    assert.equal(holdForDeniedEffects(call('write_file', { path, content: '' }), absolute, NOW), false, path);
  assert.deepEqual(
    deniedEffectFor(absolute, { toolName: 'write_file', input: { path: 'src/../build/a.txt' } })?.overlap,
    ['build/a.txt'],
    'the overlap is named as the place the tool would write',
  );
});

test('a denied clean-up of the workspace itself holds no later write', () => {
  for (const command of [
    "find . -name '*.pyc' -delete",
    'rm -rf ./*',
    'cd /w && rm -rf .',
    "python3 -c \"open('app.log').read(); import os; os.remove('x')\"",
  ]) {
    const state = stateAfterDenying(command);
    for (const path of ['src/a.ts', 'README.md', 'build/a.txt'])
      assert.equal(
        holdForDeniedEffects(call('write_file', { path, content: '' }), state, NOW),
        false,
        `${command} / ${path}`,
      );
  }
});

test("a command's layer is given every denied path as a place in the workspace, never the workspace itself", () => {
  const state = stateAfterDenying('cd /w && rm -rf build');
  state.guards?.denied.push({
    intent: intentOf('write_file', { path: 'src/../dist/x.js', content: '' }),
    denials: 1,
  });
  state.guards?.denied.push({ intent: intentOf('run_command', { command: 'rm -rf /w' }), denials: 1 });
  assert.deepEqual(
    deniedEffectPaths(state),
    ['dist/x.js', 'build'],
    'newest first; /w is the workspace itself',
  );
  assert.deepEqual(deniedEffectPaths(newGoalState({ goal: 'g', workspace: '/w' })), []);
});
