import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  declaredWaitSeconds,
  observeWait,
  MIN_WAIT_SECONDS,
  reportedSeconds,
  WAIT_STOP_SECONDS,
  WAIT_WARN_SECONDS,
  waitKey,
  waitPrompt,
  waitStart,
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

test('a sleep under MIN_WAIT_SECONDS declares no wait: `sleep 0; cat notes.md` is a plain call', () => {
  assert.equal(MIN_WAIT_SECONDS, 1);
  assert.equal(declaredWaitSeconds('run_command', command('sleep 0; cat notes.md')), undefined);
  assert.equal(declaredWaitSeconds('run_command', command('sleep 0.9; cat notes.md')), undefined);
  assert.equal(declaredWaitSeconds('run_command', command('sleep 1; cat notes.md')), 1);
  assert.equal(declaredWaitSeconds('run_command', command('sleep 0.5; sleep 0.5; cat x')), 1);
});

test('the wait key is the call with its sleeps taken out: alternating sleeps poll one thing', () => {
  const key = (line: string) => waitKey('run_command', command(line));
  assert.equal(key('sleep 1; cat s'), key('sleep 2; cat s'));
  assert.equal(key('sleep 1; cat s'), key('sleep 30m; cat s'));
  assert.equal(key('until grep -q done s; do sleep 5; done'), key('until grep -q done s; do sleep 9; done'));
  assert.notEqual(key('sleep 1; cat s'), key('sleep 1; cat t'));
  assert.notEqual(key('sleep 1; cat s'), key('cat s'));
  // what is not a sleep stays: no sleep, or a number that is no sleep's
  assert.equal(key('cat s'), 'run_command {"command":"cat s"}');
  assert.notEqual(key('grep sleep 5 notes'), key('grep sleep 6 notes'));
  assert.equal(waitKey('read_file', { path: 'sleep 5' }), 'read_file {"path":"sleep 5"}');
  assert.equal(waitKey('run_command', null), 'run_command null');
  // other input stays in the key
  assert.notEqual(
    waitKey('run_command', { command: 'sleep 1; cat s', timeout: 5 }),
    waitKey('run_command', { command: 'sleep 2; cat s', timeout: 9 }),
  );
});

test("keel's own timing at the head of a result is the time it took", () => {
  assert.equal(reportedSeconds('Exit code 0 after 2.1 s.\nbuilding'), 2.1);
  assert.equal(reportedSeconds('Exit code 3 after 12 s.\n(no output)'), 12);
  assert.equal(reportedSeconds('building\nExit code 0 after 2.1 s.'), undefined);
  assert.equal(reportedSeconds('done after 2.1 seconds'), undefined);
});

test("a timed-out or cancelled command waited what elapsed, and a rule-approved call's note line does not hide the timing", () => {
  assert.equal(
    reportedSeconds('Timed out after 60 s; the command and everything it started were killed.'),
    60,
  );
  assert.equal(
    reportedSeconds('Cancelled after 3.2 s; the command and everything it started were killed.'),
    3.2,
  );
  const byRule = '(approved at once by rule 2, made by ann)\n';
  assert.equal(reportedSeconds(`${byRule}Exit code 0 after 2.1 s.\nbuilding`), 2.1);
  assert.equal(reportedSeconds(`${byRule}Timed out after 60 s; killed.`), 60);
  // only one such line, and only in parentheses
  assert.equal(reportedSeconds(`${byRule}${byRule}Exit code 0 after 2.1 s.`), undefined);
  assert.equal(reportedSeconds('building\nTimed out after 60 s;'), undefined);
  // `sleep 700` killed at 60 s counts 60 s, not 700
  const killed = observeWait(
    undefined,
    {
      ...poll(1, 'Timed out after 60 s; the command and everything it started were killed.'),
      declaredSeconds: 700,
    },
    quiet,
  );
  assert.equal(killed.waiting.seconds, 60);
});

const poll = (
  atToolCall: number,
  resultText = 'Exit code 0 after 5.0 s.\nbuilding',
  key = 'poll',
  brought = false,
) => ({ key, declaredSeconds: 5, resultText, atToolCall, brought });
const quiet = { warned: false, warnedAndRead: false };

test('the time waited adds up, from the result when it says, else from the sleeps', () => {
  let waiting: Waiting | undefined;
  waiting = observeWait(waiting, poll(1), quiet).waiting;
  assert.deepEqual(waiting, { key: 'poll', seconds: 5, sinceToolCall: 1 });
  waiting = observeWait(waiting, poll(2, 'Exit code 0 after 7.5 s.\nbuilding'), quiet).waiting;
  assert.deepEqual(waiting, { key: 'poll', seconds: 12.5, sinceToolCall: 1 });
  waiting = observeWait(waiting, poll(3, 'no timing here'), quiet).waiting;
  assert.deepEqual(waiting, { key: 'poll', seconds: 17.5, sinceToolCall: 1 });
  // another waiting call that brings nothing new goes on with the same wait (polls that alternate)
  waiting = observeWait(waiting, poll(4, 'Exit code 0 after 1.0 s.', 'other'), quiet).waiting;
  assert.deepEqual(waiting, { key: 'other', seconds: 18.5, sinceToolCall: 1 });
  // one that brings something new begins the wait again
  waiting = observeWait(waiting, poll(5, 'Exit code 0 after 2.0 s.\nstep 9', 'poll', true), quiet).waiting;
  assert.deepEqual(waiting, { key: 'poll', seconds: 2, sinceToolCall: 5 });
});

test('a wait begins at the first waiting call, and again at each one that brought something new', () => {
  assert.equal(waitStart(undefined, { atToolCall: 4, brought: false }), 4);
  assert.equal(waitStart(undefined, { atToolCall: 4, brought: true }), 4);
  const waiting: Waiting = { key: 'poll', seconds: 30, sinceToolCall: 2 };
  assert.equal(waitStart(waiting, { atToolCall: 4, brought: false }), 2);
  assert.equal(waitStart(waiting, { atToolCall: 4, brought: true }), 4);
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
      '[Long wait] You have waited 600 s and nothing new came; the latest call:',
      '  run_command: sleep 5; cat s',
      'If what you wait for is still coming, keep waiting with longer sleeps between checks; if it may never come, look at why (a log, the process) or say in plain text what blocks the task.',
      'After 900 s of waiting without anything new, keel stops the goal.',
    ].join('\n'),
  );
  assert.ok(!prompt.includes('will not change the outcome'));
});
