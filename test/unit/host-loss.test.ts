import { test } from 'node:test';
import assert from 'node:assert/strict';
import { currentHostLoss, hostLivenessChange, hostLossText } from '../../src/workflows/hosts/host-loss';
import { hostLivenessPayloadSchema } from '../../src/workflows/goal/messages';
import { renderGoalDetails } from '../../src/workflows/goal/views/details';
import { emptyCounters, emptyUsage } from '../../src/workflows/goal/lifecycle/state';
import { hostLossLines } from '../../src/cli/host-loss-lines';
import { pendingLines } from '../../src/cli/approval-lines';
import { unavailableActions } from '../../src/workflows/hosts/host-binding';
import { newGoalState } from '../../src/workflows/goal/lifecycle/start';
import { hostView, searchAttributeValuesOf } from '../../src/workflows/goal/views/status';

const SINCE = '2030-01-01T00:00:00.000Z';
const missing = { host: 'h-b', state: 'missing' as const, since: SINCE, by: 'watcher-1' };

test('a missing signal is recorded once: repeats from other watchers change nothing', () => {
  const first = hostLivenessChange({ current: undefined, boundHost: 'h-b', signal: missing });
  assert.deepEqual(first, { kind: 'missing', missing: { host: 'h-b', since: SINCE, by: 'watcher-1' } });
  const recorded = first.kind === 'missing' ? first.missing : undefined;
  assert.deepEqual(
    hostLivenessChange({ current: recorded, boundHost: 'h-b', signal: { ...missing, by: 'watcher-2' } }),
    { kind: 'none' },
  );
  const back = { ...missing, state: 'live' as const, since: '2030-01-01T00:01:00.000Z' };
  assert.deepEqual(hostLivenessChange({ current: recorded, boundHost: 'h-b', signal: back }), {
    kind: 'back',
    was: recorded,
    since: back.since,
    by: 'watcher-1',
  });
  assert.deepEqual(hostLivenessChange({ current: undefined, boundHost: 'h-b', signal: back }), {
    kind: 'none',
  });
});

test('news of a host the goal is not bound to is ignored, and a loss of the host it left is not shown', () => {
  assert.deepEqual(hostLivenessChange({ current: undefined, boundHost: 'h-a', signal: missing }), {
    kind: 'none',
  });
  assert.equal(currentHostLoss({ host: 'h-b', since: SINCE, by: 'w' }, 'h-a'), undefined);
  assert.deepEqual(currentHostLoss({ host: 'h-b', since: SINCE, by: 'w' }, 'h-b'), {
    host: 'h-b',
    since: SINCE,
    by: 'w',
  });
});

test('the signal payload is validated: a host id, a state, an ISO time', () => {
  assert.equal(hostLivenessPayloadSchema.safeParse(missing).success, true);
  assert.equal(hostLivenessPayloadSchema.safeParse({ ...missing, state: 'gone' }).success, false);
  assert.equal(hostLivenessPayloadSchema.safeParse({ ...missing, since: 'yesterday' }).success, false);
  assert.equal(hostLivenessPayloadSchema.safeParse({ ...missing, host: 'a b' }).success, false);
  assert.equal(hostLivenessPayloadSchema.parse({ host: 'h', state: 'live', since: SINCE }).by, 'unknown');
});

test('the line says what waits for the host', () => {
  assert.equal(
    hostLossText({ host: 'h-b', since: SINCE, pendingApprovals: 1 }),
    `host h-b missing since ${SINCE} (its workers stopped beating): the call awaiting approval, once approved, will wait for it; you can:`,
  );
  assert.match(
    hostLossText({ host: 'h-b', since: SINCE, pendingApprovals: 0 }),
    /: its next workspace call will wait for it; you can:$/,
  );
});

test("the Web UI's details show a missing host first among the host lines, with the actions", () => {
  const actions = unavailableActions({ workflowId: 'goal-1', canRecreate: false });
  const markdown = renderGoalDetails({
    workflowId: 'goal-1',
    status: 'running',
    phase: 'awaiting-approval',
    goal: 'g',
    task: { index: 0, text: 'g' },
    counters: emptyCounters(),
    usage: emptyUsage(),
    startedAtMs: 0,
    writtenAtMs: 0,
    pendingApprovals: [],
    host: { id: 'h-b', queue: 'keel@h-b', via: 'probe', boundAt: SINCE, missingSince: SINCE, actions },
  });
  const block = markdown.split('\n\n').find((part) => part.startsWith('#### Workspace host'));
  assert.deepEqual(block?.split('\n'), [
    `#### Workspace host \`h-b\` missing since ${SINCE}`,
    hostLossText({ host: 'h-b', since: SINCE, pendingApprovals: 0 }),
    ...actions.map((action) => `- ${action}`),
  ]);
});

test("keel status and pending: the CLI's own reading of the heartbeats wins over the goal's record", () => {
  const host = { id: 'h-b', queue: 'keel@h-b', via: 'probe', boundAt: SINCE };
  const lines = (seen: Parameters<typeof hostLossLines>[0]['seen'], recorded = {}) =>
    hostLossLines({ workflowId: 'goal-1', host: { ...host, ...recorded }, pendingApprovals: 1, seen });
  assert.deepEqual(lines({ state: 'live' }), []);
  assert.deepEqual(lines({ state: 'live' }, { missingSince: SINCE }), [], 'back before the watcher said so');
  const dead = lines({ state: 'missing', missingSince: SINCE });
  assert.equal(dead[0], hostLossText({ host: 'h-b', since: SINCE, pendingApprovals: 1 }));
  assert.deepEqual(
    dead.slice(1),
    unavailableActions({ workflowId: 'goal-1', canRecreate: false }).map((a) => `  ${a}`),
  );
  assert.equal(
    lines(undefined, { missingSince: SINCE })[0],
    dead[0],
    'no heartbeats to read: the record decides',
  );
  assert.deepEqual(lines(undefined), []);
  assert.match(lines('no-worker')[0] ?? '', /^host h-b missing since no worker of it beats/);
  assert.deepEqual(
    lines({ state: 'missing' }, { unavailableSince: SINCE }),
    [],
    'shown as unavailable instead',
  );
  const printed = pendingLines([
    {
      workflowId: 'goal-1',
      callId: 'call-1',
      reversibility: 'irreversible',
      summary: 's',
      deadline: 'd',
      input: {},
      hostLoss: dead,
    },
  ]);
  assert.equal(printed.at(-4), `    ! ${dead[0] ?? ''}`);
});

test("a goal's views: KeelHost once bound, and a recorded loss only while it is about the bound host", () => {
  const state = newGoalState({ goal: 'g', workspace: '/srv/work/app' });
  assert.equal(searchAttributeValuesOf(state).host, undefined);
  state.host = { id: 'h-b', queue: 'keel@h-b', boundAt: SINCE, via: 'probe' };
  assert.equal(searchAttributeValuesOf(state).host, 'h-b');
  assert.equal(hostView(state, 'goal-1')?.actions, undefined, 'a healthy host: no actions');
  state.hostMissing = { host: 'h-b', since: SINCE, by: 'watcher-1' };
  const view = hostView(state, 'goal-1');
  assert.equal(view?.missingSince, SINCE);
  assert.deepEqual(view?.actions, unavailableActions({ workflowId: 'goal-1', canRecreate: false }));
  state.host = { id: 'h-c', queue: 'keel@h-c', boundAt: SINCE, via: 'rebound' };
  assert.equal(hostView(state, 'goal-1')?.missingSince, undefined, 'moved: the old host is no concern');
  assert.equal(searchAttributeValuesOf(state).host, 'h-c');
});
