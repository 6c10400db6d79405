import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  answersCheckpoint,
  DEFAULT_GUARD_SETTINGS,
  guardSettingsSchema,
  rememberModelReply,
} from '../../src/workflows/principles/guards';
import { CallEffect } from '../../src/workflows/principles/progress';
import { command, fired, fresh, oneByOne, read, turn, write } from './guards-test-helpers';

/**
 * Issue 44 through the guards: a poller is bounded by the time it waits, not by repeats; output
 * that moves is new information; a re-run after an edit is not a loop.
 */

const poll = (atToolCall: number, output = 'building', seconds = 5) =>
  command(`sleep ${seconds}; cat build.status`, atToolCall, {
    resultText: `Exit code 0 after ${(seconds + 0.1 * (atToolCall % 3)).toFixed(1)} s.\n${output}`,
    failed: false,
  });
const calls = (count: number, make: (atToolCall: number) => ReturnType<typeof poll>, from = 1) =>
  Array.from({ length: count }, (_, index) => make(from + index));

test('a declared wait with a fixed answer is not stopped within its time: 100 polls of 5 s, no decision', () => {
  const state = fresh();
  assert.deepEqual(
    fired(
      oneByOne(
        state,
        calls(100, (n) => poll(n)),
      ),
    ),
    [],
  );
  assert.equal(state.waiting?.seconds !== undefined && state.waiting.seconds > 500, true);
});

test('a declared wait is bounded by time: warned at 600 s waited, stopped at 900 s once the warning was read', () => {
  const state = fresh();
  const decisions = oneByOne(
    state,
    calls(30, (n) => poll(n, 'building', 30)),
  );
  // 30 s a poll (and keel's timing of up to 30.2 s): 600 s are reached at poll 20, 900 s at poll 30
  assert.deepEqual(fired(decisions), ['20:waiting:warn', '30:waiting:stop']);
  const warning = decisions[19]?.[0];
  assert.ok(warning?.prompt?.startsWith('[Long wait] You have waited 60'));
  assert.ok(!warning?.prompt?.includes('will not change the outcome'));
  assert.deepEqual(decisions[29]?.[0]?.data, {
    call: 'run_command: sleep 30; cat build.status',
    waitedSeconds: 903,
    limit: 900,
    sinceToolCall: 1,
    atToolCall: 30,
    warnedAtTurn: 20,
  });
  assert.equal(
    decisions[29]?.[0]?.summary,
    'waiting: 903 s waited on run_command: sleep 30; cat build.status, after a warning',
  );
});

test('a new lasting state ends the wait: its time starts again', () => {
  const state = fresh();
  oneByOne(
    state,
    calls(10, (n) => poll(n, 'building', 30)),
  );
  assert.equal(Math.round(state.waiting?.seconds ?? 0), 301);
  oneByOne(state, [write('src/a.ts', 'fixed', 11)]);
  assert.equal(state.waiting, undefined);
  const later = oneByOne(
    state,
    calls(19, (n) => poll(n, 'building', 30), 12),
  );
  assert.deepEqual(fired(later), []);
});

test('a poll whose output moves brings new information every time: no loop, no stagnation, even without a sleep', () => {
  const state = fresh();
  const moving = calls(40, (n) =>
    command('cat build.status', n, {
      resultText: `Exit code 0 after 0.1 s.\nstep ${n} of 90`,
      failed: false,
    }),
  );
  // every read new: careful reading, not endless exploration either
  assert.deepEqual(fired(oneByOne(state, moving)), []);
});

test('a poll that does not sleep and gets the same answer is a loop, whatever keel timed', () => {
  const state = fresh();
  const busy = calls(5, (n) =>
    command('cat build.status', n, { resultText: `Exit code 0 after 0.${n} s.\nbuilding`, failed: false }),
  );
  assert.deepEqual(fired(oneByOne(state, busy)), ['3:loop:warn', '5:loop:stop']);
});

test('waits count neither for stagnation nor for exploration', () => {
  const state = fresh();
  // 20 reads of new things, then 60 polls: exploration would warn at 30 calls without a change
  const reads = calls(20, (n) => read(`src/file-${n}.ts`, n));
  assert.deepEqual(fired(oneByOne(state, [...reads, ...calls(60, (n) => poll(n), 21)])), []);
  assert.equal(state.exploration?.waitCalls, 60);
  assert.equal(state.exploration?.atToolCall, 0);
});

test('a denied wait is a denial, not a wait', () => {
  const state = fresh();
  oneByOne(
    state,
    [poll(1)].map((call) => ({ ...call, effect: CallEffect.Denied })),
  );
  assert.equal(state.waiting, undefined);
});

test('re-running the tests after an edit, and re-reading a file after editing it, are not loops', () => {
  const state = fresh();
  const tests = (n: number) => command('npm test', n);
  const sequence = [
    read('src/a.ts', 1),
    tests(2),
    write('src/a.ts', 'one', 3),
    read('src/a.ts', 4, { resultText: 'contents of src/a.ts' }),
    tests(5),
    write('src/a.ts', 'two', 6),
    read('src/a.ts', 7, { resultText: 'contents of src/a.ts' }),
    tests(8),
    write('src/b.ts', 'three', 9),
    tests(10),
    // a final check, twice
    tests(11),
  ];
  assert.deepEqual(fired(oneByOne(state, sequence)), []);
  // the same runs without the edits between them are a loop
  const again = fresh();
  assert.deepEqual(fired(oneByOne(again, [tests(1), tests(2), tests(3)])), ['3:loop:warn']);
});

test('with results not matched, a loop warning for output that moved never says repeating changes nothing', () => {
  const settings = guardSettingsSchema.parse({ loop: { matchResults: false } });
  const state = fresh();
  const moving = calls(3, (n) => command('cat build.status', n, { resultText: `step ${n}`, failed: false }));
  const decisions = oneByOne(state, moving, settings);
  const prompt = decisions[2]?.[0]?.prompt ?? '';
  assert.ok(prompt.includes('Its output changed between calls'));
  assert.ok(!prompt.includes('Repeating it will not change the outcome'));
  assert.equal(decisions[2]?.[0]?.data.sameResult, false);
  const fixed = fresh();
  const same = calls(3, (n) => command('cat build.status', n, { resultText: 'building', failed: false }));
  const sameDecision = oneByOne(fixed, same, settings)[2]?.[0];
  assert.ok(sameDecision?.prompt?.includes('Repeating it will not change the outcome'));
  assert.equal(sameDecision?.data.sameResult, true);
});

test('careful work: 40 reads of new files, then 40 edits, is never warned', () => {
  const state = fresh();
  const reads = calls(40, (n) => read(`src/module-${n}.ts`, n));
  const edits = calls(40, (n) => write(`src/module-${n - 40}.ts`, 'renamed', n), 41);
  // past 30 calls without a change, but every one of them new: no exploration warning
  assert.deepEqual(fired(oneByOne(state, [...reads, ...edits])), []);
  // the same length of reading where some reads bring nothing new is warned at 30
  const wandering = fresh();
  const mixed = calls(30, (n) =>
    n % 4 === 0
      ? read(`src/again-${n}.ts`, n, { resultText: 'contents of src/module-1.ts' })
      : read(`src/m-${n}.ts`, n),
  );
  assert.deepEqual(fired(oneByOne(wandering, mixed)), ['30:exploration:warn']);
});

test('a poller saying "still building" again at each checkpoint answers it: time moved while it waited', () => {
  const state = fresh();
  const status = (n: number) =>
    `Still on task: build.status still says building (check ${n}); next I will check again.`;
  for (let n = 1; n <= 4; n++) {
    rememberModelReply(state, status(n), n);
    turn(state, n, [poll(n)]);
  }
  assert.deepEqual(answersCheckpoint(state, DEFAULT_GUARD_SETTINGS, { text: status(5), judged: true }), {
    addressed: true,
  });
  // the same narration while reading what was seen, no wait, no change: a template, unanswered
  const idle = fresh();
  for (let n = 1; n <= 4; n++) {
    rememberModelReply(idle, status(n), n);
    turn(idle, n, [read('src/a.ts', n)]);
  }
  assert.equal(
    answersCheckpoint(idle, DEFAULT_GUARD_SETTINGS, { text: status(5), judged: true }).addressed,
    false,
  );
});

test('a sleep under a second is no wait: `sleep 0; cat notes.md` with the same answer is a loop', () => {
  const state = fresh();
  const spelled = calls(5, (n) =>
    command(`sleep ${n % 2 === 0 ? '0' : '0.5'}; cat notes.md`, n, {
      resultText: `Exit code 0 after 0.${n} s.\nsame notes`,
      failed: false,
    }),
  );
  // the sleeps' spellings differ: still one call, warned at 3, stopped at 5
  assert.deepEqual(fired(oneByOne(state, spelled)), ['3:loop:warn', '5:loop:stop']);
  assert.equal(state.waiting, undefined);
});

test('polls that alternate their sleeps, or alternate two checks, with nothing new are one wait, bounded by time', () => {
  const state = fresh();
  oneByOne(
    state,
    calls(6, (n) => poll(n, 'building', n % 2 === 0 ? 1 : 2)),
  );
  assert.equal(state.waiting?.sinceToolCall, 1);
  assert.ok((state.waiting?.seconds ?? 0) > 9);
  // two checks taking turns: the second's first answer was new, so the wait began at call 2;
  // 600 s are reached at call 21 and 900 s at call 31, as for one check
  const twoChecks = fresh();
  const alternating = calls(31, (n) =>
    n % 2 === 0
      ? poll(n, 'building', 30)
      : command('sleep 30; tail -1 build.log', n, {
          resultText: `Exit code 0 after 30.${n % 3} s.\ncompiling`,
          failed: false,
        }),
  );
  assert.deepEqual(fired(oneByOne(twoChecks, alternating)), ['21:waiting:warn', '31:waiting:stop']);
});

test('a poll whose output moves is never stopped by the wait: a 20-minute build polled every 30 s', () => {
  const state = fresh();
  const build = calls(40, (n) =>
    command('sleep 30; tail -1 build.log', n, {
      resultText: `Exit code 0 after 30.1 s.\n[${n}/40] compiling module-${n}`,
      failed: false,
    }),
  );
  assert.deepEqual(fired(oneByOne(state, build)), []);
  // each new line began the wait again
  assert.deepEqual(state.waiting, {
    key: 'run_command {"command":"sleep; tail -1 build.log"}',
    seconds: 30.1,
    sinceToolCall: 40,
    atTurn: 40,
  });
  // when the line stops moving, the time adds up again from there
  oneByOne(
    state,
    calls(
      3,
      (n) =>
        command('sleep 30; tail -1 build.log', n, {
          resultText: 'Exit code 0 after 30.1 s.\n[40/40] compiling module-40',
          failed: false,
        }),
      41,
    ),
  );
  assert.equal(state.waiting?.sinceToolCall, 40);
  assert.equal(Math.round(state.waiting?.seconds ?? 0), 120);
});

test('a sleep killed by its timeout counts the time it ran, not the time it declared', () => {
  const state = fresh();
  const killed = (n: number) =>
    command('sleep 700; cat build.status', n, {
      resultText: 'Timed out after 60 s; the command and everything it started were killed.',
      failed: true,
    });
  assert.deepEqual(fired(oneByOne(state, calls(2, killed))), []);
  assert.equal(state.waiting?.seconds, 120);
});
