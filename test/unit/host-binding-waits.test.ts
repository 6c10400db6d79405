import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import { chooseBinding, type HostAnswer } from '../../src/workflows/hosts/host-binding';
import { isPending, unansweredOf, type AskedHost } from '../../src/workflows/goal/host/questions';

// Issue 41: a host that has not answered yet is not a host that said "no". These are the rules
// the start of a goal follows while it waits (goal/host/binding.ts, goal/host/questions.ts).

const WORKSPACE = '/workspaces/app';
type State = 'present' | 'missing' | 'not-a-directory' | 'outside-roots';
const said = (hostId: string, state: State): HostAnswer => ({ hostId, probe: { hostId, state } });
const silent = (hostId: string): HostAnswer => ({ hostId, probe: undefined, pending: true });
const gone = (hostId: string): HostAnswer => ({ hostId, probe: undefined });

test('a listed host that has not answered yet makes the goal wait for it, not fail', () => {
  assert.deepEqual(chooseBinding({ workspace: WORKSPACE, answers: [said('a', 'missing'), silent('vm')] }), {
    kind: 'wait',
    hostIds: ['vm'],
  });
  assert.deepEqual(
    chooseBinding({ workspace: WORKSPACE, answers: [silent('c'), said('a', 'outside-roots'), silent('b')] }),
    { kind: 'wait', hostIds: ['b', 'c'] },
  );
});

test('a host that has the workspace binds at once, whoever else is still silent', () => {
  assert.deepEqual(chooseBinding({ workspace: WORKSPACE, answers: [silent('a'), said('b', 'present')] }), {
    kind: 'bind',
    hostId: 'b',
    via: 'probe',
  });
});

test('with a git source the goal still waits for a silent host rather than cloning beside it', () => {
  const source = { git: 'file:///srv/app.git' };
  assert.deepEqual(
    chooseBinding({ workspace: WORKSPACE, source, answers: [said('a', 'missing'), silent('b')] }),
    { kind: 'wait', hostIds: ['b'] },
  );
  assert.deepEqual(
    chooseBinding({ workspace: WORKSPACE, source, answers: [said('a', 'missing'), gone('b')] }),
    { kind: 'clone', hostId: 'a' },
    'a host that can no longer answer is not waited for',
  );
});

test('only when every host that may answer has answered "no" does the goal fail, naming each', () => {
  const choice = chooseBinding({
    workspace: WORKSPACE,
    answers: [said('a', 'missing'), gone('vm'), said('b', 'not-a-directory')],
  });
  assert.deepEqual(choice, {
    kind: 'fail',
    type: 'WorkspaceNotFound',
    message:
      'workspace /workspaces/app exists on no host (asked: a (missing), b (not a directory), vm (no answer))',
  });
});

test('a named host that took the question but is slow is waited for; one no worker polls is unknown', () => {
  assert.deepEqual(chooseBinding({ workspace: WORKSPACE, named: 'b', answers: [silent('b')] }), {
    kind: 'wait',
    hostIds: ['b'],
  });
  const unknown = chooseBinding({ workspace: WORKSPACE, named: 'zz', answers: [gone('zz')] });
  assert.equal(unknown.kind === 'fail' && unknown.type, 'UnknownHost');
});

const timeout = (
  type: 'SCHEDULE_TO_START' | 'START_TO_CLOSE',
  retryState: 'TIMEOUT' | 'MAXIMUM_ATTEMPTS_REACHED',
) =>
  new ActivityFailure(
    'activity timed out',
    'probeWorkspace',
    '1',
    retryState,
    'worker',
    new TimeoutFailure('timed out', undefined, type),
  );

test('a question no worker took is "away", one a worker took and did not answer is "silent"', () => {
  assert.equal(unansweredOf(timeout('SCHEDULE_TO_START', 'TIMEOUT')), 'away');
  assert.equal(unansweredOf(timeout('START_TO_CLOSE', 'MAXIMUM_ATTEMPTS_REACHED')), 'silent');
  const failedStat = new ActivityFailure(
    'failed',
    'probeWorkspace',
    '1',
    'MAXIMUM_ATTEMPTS_REACHED',
    'worker',
    ApplicationFailure.retryable('EACCES', 'Error'),
  );
  assert.equal(unansweredOf(failedStat), 'silent');
  const invalid = new ActivityFailure(
    'failed',
    'probeWorkspace',
    '1',
    'NON_RETRYABLE_FAILURE',
    'worker',
    ApplicationFailure.nonRetryable('workspace must be an absolute path', 'InvalidHostActivityInput'),
  );
  assert.equal(unansweredOf(invalid), 'refused');
});

test('who may still answer: a listed host while listed (even too busy to take the question); a named one only when it took it', () => {
  const asked = (unanswered: AskedHost['unanswered']): AskedHost => ({
    hostId: 'vm',
    probe: undefined,
    unanswered,
  });
  const listed = { named: false, listed: ['vm'] };
  assert.equal(isPending(asked('silent'), listed), true);
  assert.equal(isPending(asked('away'), listed), true, 'full activity slots look like a host away');
  assert.equal(isPending(asked('silent'), { named: false, listed: [] }), false, 'no longer listed: stopped');
  assert.equal(isPending(asked('refused'), listed), false);
  const named = { named: true, listed: [] };
  assert.equal(isPending(asked('silent'), named), true);
  assert.equal(isPending(asked('away'), named), false, 'no worker of a named host: UnknownHost at once');
  assert.equal(isPending({ hostId: 'vm', probe: { hostId: 'vm', state: 'missing' } }, listed), false);
});
