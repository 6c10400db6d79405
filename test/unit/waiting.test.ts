import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  declaredWaitSeconds,
  observeWait,
  reportedSeconds,
  WAIT_STOP_SECONDS,
  WAIT_WARN_SECONDS,
  waitPrompt,
  type Waiting,
} from '../../src/workflows/principles/waiting';

/** Waiting is not looping (issue 44): a declared wait is bounded by the time it waited. */

const command = (line: string) => ({ command: line });

test('a shell command that sleeps declares a wait: the sum of its sleeps, in seconds', () => {
  assert.equal(declaredWaitSeconds('run_command', command('sleep 2; cat build.status')), 2);
  assert.equal(declaredWaitSeconds('run_command', command('sleep 2 && sleep 3.5 && cat x')), 5.5);
  assert.equal(declaredWaitSeconds('run_command', command('sleep 1m; make status')), 60);
  assert.equal(declaredWaitSeconds('run_command', command('sleep 2h')), 7200);
  assert.equal(declaredWaitSeconds('run_command', command('sleep 1d')), 86_400);
  assert.equal(declaredWaitSeconds('run_command', command('sleep 10s|cat')), 10);
  assert.equal(declaredWaitSeconds('run_command', command('(sleep 4) ; cat x')), 4);
  assert.equal(declaredWaitSeconds('run_command', command('until grep -q done s; do sleep 5; done')), 5);
});

test('no sleep, a sleep without a number, another tool or no command: no declared wait', () => {
  assert.equal(declaredWaitSeconds('run_command', command('cat build.status')), undefined);
  assert.equal(declaredWaitSeconds('run_command', command('sleep $N; cat x')), undefined);
  assert.equal(declaredWaitSeconds('run_command', command('nosleep 5')), undefined);
  assert.equal(declaredWaitSeconds('run_command', command('grep sleep 5 notes')), undefined);
  assert.equal(declaredWaitSeconds('run_command', command('sleep 5x')), undefined);
  assert.equal(declaredWaitSeconds('read_file', { path: 'sleep 5' }), undefined);
  assert.equal(declaredWaitSeconds('run_command', {}), undefined);
  assert.equal(declaredWaitSeconds('run_command', null), undefined);
});

test("keel's own timing at the head of a result is the time it took", () => {
  assert.equal(reportedSeconds('Exit code 0 after 2.1 s.\nbuilding'), 2.1);
  assert.equal(reportedSeconds('Exit code 3 after 12 s.\n(no output)'), 12);
  assert.equal(reportedSeconds('building\nExit code 0 after 2.1 s.'), undefined);
  assert.equal(reportedSeconds('done after 2.1 seconds'), undefined);
});

const poll = (atToolCall: number, resultText = 'Exit code 0 after 5.0 s.\nbuilding', key = 'poll') => ({
  key,
  declaredSeconds: 5,
  resultText,
  atToolCall,
});
const quiet = { warned: false, warnedAndRead: false };

test('the time waited on one call adds up, from the result when it says, else from the sleeps', () => {
  let waiting: Waiting | undefined;
  waiting = observeWait(waiting, poll(1), quiet).waiting;
  assert.deepEqual(waiting, { key: 'poll', seconds: 5, sinceToolCall: 1 });
  waiting = observeWait(waiting, poll(2, 'Exit code 0 after 7.5 s.\nbuilding'), quiet).waiting;
  assert.deepEqual(waiting, { key: 'poll', seconds: 12.5, sinceToolCall: 1 });
  waiting = observeWait(waiting, poll(3, 'no timing here'), quiet).waiting;
  assert.deepEqual(waiting, { key: 'poll', seconds: 17.5, sinceToolCall: 1 });
  // another waiting call starts a wait of its own
  waiting = observeWait(waiting, poll(4, 'Exit code 0 after 1.0 s.', 'other'), quiet).waiting;
  assert.deepEqual(waiting, { key: 'other', seconds: 1, sinceToolCall: 4 });
});

test('a wait is warned about from WAIT_WARN_SECONDS, once; stopped from WAIT_STOP_SECONDS once the warning was read', () => {
  assert.equal(WAIT_WARN_SECONDS, 600);
  assert.equal(WAIT_STOP_SECONDS, 900);
  const at = (seconds: number): Waiting => ({ key: 'poll', seconds, sinceToolCall: 3 });
  assert.deepEqual(observeWait(at(594), poll(9), quiet).verdict, { kind: 'none' });
  assert.deepEqual(observeWait(at(595), poll(9), quiet).verdict, {
    kind: 'warn',
    seconds: 600,
    limit: 600,
    sinceToolCall: 3,
  });
  // warned already: no second warning; not read yet: no stop either
  assert.deepEqual(observeWait(at(995), poll(9), { warned: true, warnedAndRead: false }).verdict, {
    kind: 'none',
  });
  const read = { warned: true, warnedAndRead: true };
  assert.deepEqual(observeWait(at(894), poll(9), read).verdict, { kind: 'none' });
  assert.deepEqual(observeWait(at(895), poll(9), read).verdict, {
    kind: 'stop',
    seconds: 900,
    limit: 900,
    sinceToolCall: 3,
  });
});

test('the wait prompt names the call, the time waited and the stop, and tells the poller to wait longer, not that nothing changes', () => {
  const prompt = waitPrompt({
    summary: 'run_command: sleep 5; cat s',
    seconds: 600.4,
    consequence: 'stops the goal',
  });
  assert.equal(
    prompt,
    [
      '[Long wait] You have waited 600 s on the same call:',
      '  run_command: sleep 5; cat s',
      'If what you wait for is still coming, keep waiting with longer sleeps between checks; if it may never come, look at why (a log, the process) or say in plain text what blocks the task.',
      'After 900 s of waiting on this call, keel stops the goal.',
    ].join('\n'),
  );
  assert.ok(!prompt.includes('will not change the outcome'));
});
