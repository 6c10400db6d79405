import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  autoDenial,
  MAX_REMEMBERED_DENIALS,
  rememberDenial,
  rememberedDenialFor,
  type RememberedDenial,
} from '../../src/workflows/goal/tool-calls/remembered-denials';
import {
  approvalDecisionSchema,
  loadGoalState,
  type ApprovalDecision,
} from '../../src/workflows/goal/lifecycle/state';
import { newGoalState } from '../../src/workflows/goal/lifecycle/start';
import { denialText } from '../../src/workflows/goal/tool-calls/turn';
import { intentOf } from '../../src/workflows/principles/call-intent';

const shell = (command: string, callId = 'call-1') => ({
  callId,
  toolName: 'run_command',
  input: { command },
  summary: `run_command: ${command}`,
});

const denial = (overrides: Partial<ApprovalDecision> = {}): ApprovalDecision => ({
  approved: false,
  approver: 'carol',
  reason: 'not the build dir',
  decidedAt: '2030-01-01T00:00:00.000Z',
  via: 'signal',
  doNotAskAgain: true,
  ...overrides,
});

test('a remembered denial matches the same intent in other words, and nothing else', () => {
  const remembered = rememberDenial([], shell('rm -rf build'), denial());
  assert.equal(remembered.length, 1);
  assert.deepEqual(remembered[0]?.intent, {
    tool: 'run_command',
    targets: ['build'],
    call: '',
    effects: ['build'],
  });
  assert.deepEqual(remembered[0]?.decision, {
    callId: 'call-1',
    summary: 'run_command: rm -rf build',
    approver: 'carol',
    reason: 'not the build dir',
    decidedAt: '2030-01-01T00:00:00.000Z',
    via: 'signal',
  });
  for (const again of ['rm -rf build', 'rm -r ./build', 'find build -delete', 'rm -rf build/']) {
    assert.equal(rememberedDenialFor(remembered, shell(again)), remembered[0], again);
  }
  for (const other of ['rm -rf dist', 'ls']) {
    assert.equal(rememberedDenialFor(remembered, shell(other)), undefined, other);
  }
  // issue 44: a denial is of effects: writing over what `rm -rf build` would delete is the same
  // request through another tool, and reading it is not
  assert.equal(
    rememberedDenialFor(remembered, { toolName: 'write_file', input: { path: 'build/a.txt', content: '' } }),
    remembered[0],
  );
  assert.equal(
    rememberedDenialFor(remembered, { toolName: 'read_file', input: { path: 'build/a.txt' } }),
    undefined,
  );
  assert.equal(
    rememberedDenialFor(remembered, { toolName: 'write_file', input: { path: 'dist/a.txt', content: '' } }),
    undefined,
  );
  assert.equal(rememberedDenialFor(undefined, shell('rm -rf build')), undefined);
  assert.equal(rememberedDenialFor([], shell('rm -rf build')), undefined);
});

test('only human denials are remembered; the same intent again replaces the older entry', () => {
  for (const via of ['timeout', 'cancellation', 'remembered-denial'] as const) {
    assert.deepEqual(rememberDenial([], shell('rm -rf build'), denial({ via })), [], via);
  }
  const first = rememberDenial([], shell('rm -rf build'), denial());
  const second = rememberDenial(
    first,
    shell('rm -rf build', 'call-7'),
    denial({ approver: 'dan', via: 'update' }),
  );
  assert.equal(second.length, 1);
  assert.equal(second[0]?.decision.approver, 'dan');
  assert.equal(second[0]?.decision.via, 'update');
  const both = rememberDenial(second, shell('rm -rf dist', 'call-8'), denial());
  assert.deepEqual(
    both.map((entry) => entry.intent.targets),
    [['build'], ['dist']],
  );
});

test('the list is capped; the oldest go first, the newest match first', () => {
  let remembered: RememberedDenial[] = [];
  for (let index = 0; index < MAX_REMEMBERED_DENIALS + 5; index += 1) {
    remembered = rememberDenial(remembered, shell(`rm -rf dir${index}`, `call-${index}`), denial());
  }
  assert.equal(remembered.length, MAX_REMEMBERED_DENIALS);
  assert.equal(rememberedDenialFor(remembered, shell('rm -rf dir0')), undefined, 'the oldest went');
  assert.ok(rememberedDenialFor(remembered, shell(`rm -rf dir${MAX_REMEMBERED_DENIALS + 4}`)));
  // Two entries that both match (overlapping targets): the newest decision is named.
  const overlapping = rememberDenial(
    rememberDenial([], shell('rm -rf a b', 'call-1'), denial({ approver: 'old' })),
    shell('rm -rf b c', 'call-2'),
    denial({ approver: 'new' }),
  );
  assert.equal(rememberedDenialFor(overlapping, shell('rm b'))?.decision.approver, 'new');
});

test('a long target-less call is kept short, and still matches itself but not a different one', () => {
  const long = (tail: string) => ({ toolName: 'http_post', input: { body: 'x'.repeat(5_000) + tail } });
  const intent = intentOf(long('1').toolName, long('1').input);
  assert.ok(intent.call.length < 400, `kept ${intent.call.length} chars`);
  const remembered = rememberDenial([], { ...long('1'), callId: 'call-1', summary: 'post' }, denial());
  assert.ok(rememberedDenialFor(remembered, long('1')));
  assert.equal(rememberedDenialFor(remembered, long('2')), undefined);
});

test('the auto-denial is a denial by keel that names the intent and who denied it', () => {
  const [remembered] = rememberDenial([], shell('rm -rf build'), denial());
  assert.ok(remembered);
  const decision = autoDenial(remembered, '2030-01-02T00:00:00.000Z');
  assert.equal(approvalDecisionSchema.safeParse(decision).success, true, 'via is valid in the schema');
  assert.equal(decision.approved, false);
  assert.equal(decision.approver, 'keel');
  assert.equal(decision.via, 'remembered-denial');
  const text = denialText(decision, { reversibility: 'irreversible', toolName: 'run_command' }, []);
  assert.match(
    text,
    /^Not run: a human \(carol\) denied this intent \(run_command on build\) earlier and asked not to be asked again, so keel refused it without asking\. Their reason: not the build dir/,
  );
  assert.match(text, /Do not ask for this again, in these or other words/);
  // What a human refused stays undone: no next action suggests working around them.
  assert.match(
    text,
    /Leave the refused step undone: doing it with another tool, a script or other words is the same request, refused the same way; finish what does not need it/,
  );
  assert.doesNotMatch(text, /another way/);
  assert.doesNotMatch(text, /so a human can approve it next time/);
});

test('goal state: older states without remembered denials still load; the list round-trips and is capped', () => {
  const state = newGoalState({ goal: 'g', workspace: '/w' });
  const { approvalsAutoDenied: _dropped, ...olderCounters } = state.counters;
  const older = loadGoalState({ ...state, counters: olderCounters });
  assert.ok(older.ok, older.ok ? '' : older.message);
  assert.equal(older.state.rememberedDenials, undefined);
  assert.equal(older.state.counters.approvalsAutoDenied, 0);

  const remembered = rememberDenial([], shell('rm -rf build'), denial());
  const carried = loadGoalState(JSON.parse(JSON.stringify({ ...state, rememberedDenials: remembered })));
  assert.ok(carried.ok);
  assert.deepEqual(carried.state.rememberedDenials, remembered);

  const tooMany = Array.from({ length: MAX_REMEMBERED_DENIALS + 1 }, () => remembered[0]);
  assert.equal(loadGoalState({ ...state, rememberedDenials: tooMany }).ok, false);
});
