import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chooseBinding,
  unavailableActions,
  unavailableText,
  type HostAnswer,
} from '../../src/workflows/hosts/host-binding';

const WORKSPACE = '/workspaces/app';
const answer = (
  hostId: string,
  state?: 'present' | 'missing' | 'not-a-directory' | 'outside-roots',
): HostAnswer => ({
  hostId,
  probe: state === undefined ? undefined : { hostId, state },
});

test('a goal binds to the host that has its workspace, the first by name when several do', () => {
  assert.deepEqual(
    chooseBinding({
      workspace: WORKSPACE,
      answers: [answer('c', 'present'), answer('a', 'missing'), answer('b', 'present')],
    }),
    { kind: 'bind', hostId: 'b', via: 'probe' },
  );
});

test('a workspace no host has fails at the start, naming every host asked and what it said', () => {
  const choice = chooseBinding({
    workspace: WORKSPACE,
    answers: [answer('b', 'outside-roots'), answer('a', 'missing'), answer('c')],
  });
  assert.equal(choice.kind, 'fail');
  assert.equal(choice.kind === 'fail' && choice.type, 'WorkspaceNotFound');
  assert.equal(
    choice.kind === 'fail' && choice.message,
    "workspace /workspaces/app exists on no host (asked: a (missing), b (outside the host's workspace roots), c (no answer))",
  );
});

test('with no host polling at all, the failure says so instead of listing nobody', () => {
  const choice = chooseBinding({ workspace: WORKSPACE, answers: [] });
  assert.match(choice.kind === 'fail' ? choice.message : '', /no keel worker polls the task queue/);
});

test('a named host must answer and have the workspace; others are not consulted', () => {
  assert.deepEqual(chooseBinding({ workspace: WORKSPACE, named: 'b', answers: [answer('b', 'present')] }), {
    kind: 'bind',
    hostId: 'b',
    via: 'named',
  });
  const unknown = chooseBinding({ workspace: WORKSPACE, named: 'zz', answers: [answer('zz')] });
  assert.equal(unknown.kind === 'fail' && unknown.type, 'UnknownHost');
  assert.match(unknown.kind === 'fail' ? unknown.message : '', /^unknown host "zz"/);
  const missing = chooseBinding({ workspace: WORKSPACE, named: 'b', answers: [answer('b', 'missing')] });
  assert.equal(missing.kind === 'fail' && missing.type, 'WorkspaceNotFound');
  assert.equal(
    missing.kind === 'fail' && missing.message,
    'host "b" does not have the workspace /workspaces/app (missing)',
  );
});

test('with a git source, a missing workspace is cloned on a host that answered, never outside its roots', () => {
  const source = { git: 'file:///srv/app.git' };
  assert.deepEqual(
    chooseBinding({
      workspace: WORKSPACE,
      source,
      answers: [answer('b', 'missing'), answer('a', 'outside-roots')],
    }),
    { kind: 'clone', hostId: 'b' },
  );
  assert.deepEqual(
    chooseBinding({
      workspace: WORKSPACE,
      source,
      answers: [answer('b', 'missing'), answer('a', 'present')],
    }),
    { kind: 'bind', hostId: 'a', via: 'probe' },
    'a host that has it wins over cloning',
  );
  assert.equal(
    chooseBinding({ workspace: WORKSPACE, source, answers: [answer('a', 'outside-roots'), answer('c')] })
      .kind,
    'fail',
  );
  assert.deepEqual(
    chooseBinding({ workspace: WORKSPACE, source, named: 'c', answers: [answer('c', 'missing')] }),
    { kind: 'clone', hostId: 'c' },
  );
});

test('an unavailable host is shown with when it went away and what a human can do', () => {
  assert.equal(
    unavailableText({
      id: 'a',
      queue: 'keel@a',
      boundAt: 't0',
      via: 'probe',
      unavailableSince: '2026-11-23T10:00:00.000Z',
    }),
    'workspace host a unavailable since 2026-11-23T10:00:00.000Z',
  );
  const withSource = unavailableActions({ workflowId: 'goal-1', canRecreate: true });
  assert.equal(withSource.length, 3);
  assert.match(withSource[0] ?? '', /^wait/);
  assert.equal(withSource[1], 'cancel: keel cancel goal-1');
  assert.match(
    withSource[2] ?? '',
    /^rebind: keel rebind goal-1 --host <host> \(the workspace is cloned there/,
  );
  assert.match(
    unavailableActions({ workflowId: 'goal-1', canRecreate: false })[2] ?? '',
    /has the same workspace/,
  );
});
