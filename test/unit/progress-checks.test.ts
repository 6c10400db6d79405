import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lastProgressCycleOf } from '../../src/workflows/planning/assessment';
import {
  CallEffect,
  effectOfCall,
  initialProgressMemory,
  judgeProgress,
  ProgressKind,
  type ProgressCall,
} from '../../src/workflows/principles/progress';

/** One notion of progress (issue 44): effects, checks after a change, and noise taken out. */

const none = { created: [], modified: [], deleted: [] };

test('a call keel watched change nothing ("Workspace changes: none") is not a change', () => {
  assert.equal(effectOfCall({ ok: true, reversibility: 'mutating', effects: none }), CallEffect.Read);
  assert.equal(
    effectOfCall({ ok: true, reversibility: 'mutating', effects: { ...none, created: ['a'] } }),
    CallEffect.Change,
  );
  assert.equal(
    effectOfCall({ ok: true, reversibility: 'mutating', effects: { ...none, modified: ['a'] } }),
    CallEffect.Change,
  );
  assert.equal(
    effectOfCall({ ok: true, reversibility: 'mutating', effects: { ...none, deleted: ['a'] } }),
    CallEffect.Change,
  );
  assert.equal(
    effectOfCall({
      ok: true,
      reversibility: 'mutating',
      effects: { ...none, omitted: { created: 0, modified: 2, deleted: 0 } },
    }),
    CallEffect.Change,
  );
  assert.equal(
    effectOfCall({ ok: true, reversibility: 'mutating', effects: { ...none, collapsed: { '.git/': 3 } } }),
    CallEffect.Change,
  );
  assert.equal(
    effectOfCall({
      ok: true,
      reversibility: 'mutating',
      effects: { ...none, omitted: { created: 0, modified: 0, deleted: 0 }, collapsed: {} },
    }),
    CallEffect.Read,
  );
});

test('unwatched or irreversible calls that succeeded are changes; failed and read-only calls are reads', () => {
  assert.equal(effectOfCall({ ok: true, reversibility: 'mutating' }), CallEffect.Change);
  assert.equal(effectOfCall({ ok: true, reversibility: 'irreversible', effects: none }), CallEffect.Change);
  assert.equal(effectOfCall({ ok: false, reversibility: 'mutating' }), CallEffect.Read);
  assert.equal(
    effectOfCall({ ok: false, reversibility: 'irreversible', effects: { ...none, created: ['a'] } }),
    CallEffect.Read,
  );
  assert.equal(effectOfCall({ ok: true, reversibility: 'read-only' }), CallEffect.Read);
});

const run = (command: string, resultText: string, effect: CallEffect = CallEffect.Read): ProgressCall => ({
  effect,
  key: `run_command ${command}`,
  resultText,
  targets: [],
});
const write = (path: string, content: string): ProgressCall => ({
  effect: CallEffect.Change,
  key: `write_file ${path} ${content}`,
  resultText: `Replaced the content of ${path}`,
  stateAfter: `${path}#${content}`,
  targets: [path],
});

test("keel's timings are not new information: the same failure timed differently is nothing new", () => {
  const memory = initialProgressMemory();
  assert.equal(
    judgeProgress(memory, run('npm test', 'Exit code 1 after 0.4 s.\nfail')),
    ProgressKind.NewInformation,
  );
  assert.equal(
    judgeProgress(memory, run('npm test', 'Exit code 1 after 0.9 s.\nfail')),
    ProgressKind.Nothing,
  );
});

test('the first run of a call after a new lasting state checks it: new, even with an old result; the second is not', () => {
  const memory = initialProgressMemory();
  assert.equal(judgeProgress(memory, run('npm test', 'fail')), ProgressKind.NewInformation);
  assert.equal(judgeProgress(memory, run('npm test', 'fail')), ProgressKind.Nothing);
  assert.equal(judgeProgress(memory, write('src/a.ts', 'one')), ProgressKind.NewState);
  assert.equal(judgeProgress(memory, run('npm test', 'fail')), ProgressKind.NewInformation);
  assert.equal(judgeProgress(memory, run('npm test', 'fail')), ProgressKind.Nothing);
  // a call not made before that shows an old result checks nothing: only re-runs do
  assert.equal(judgeProgress(memory, run('npm run check', 'fail')), ProgressKind.Nothing);
  // the change itself run again is the same change, not a check of it
  const build = run('make', 'built', CallEffect.Change);
  assert.equal(judgeProgress(memory, build), ProgressKind.NewState);
  assert.equal(judgeProgress(memory, build), ProgressKind.Nothing);
});

test('before any change, a different call with an old result brings nothing', () => {
  const memory = initialProgressMemory();
  assert.equal(judgeProgress(memory, run('cat a', 'same')), ProgressKind.NewInformation);
  assert.equal(judgeProgress(memory, run('cat b', 'same')), ProgressKind.Nothing);
});

test('a check that shows nothing unseen teaches nothing: churn between runs of the same failing test stays churn', () => {
  const memory = initialProgressMemory();
  assert.equal(judgeProgress(memory, run('node t.js', 'fail 3600')), ProgressKind.NewInformation);
  assert.equal(judgeProgress(memory, write('notes.txt', 'attempt 1')), ProgressKind.NewState);
  assert.equal(judgeProgress(memory, run('node t.js', 'fail 3600')), ProgressKind.NewInformation);
  for (const attempt of [2, 3, 4, 5]) {
    assert.equal(judgeProgress(memory, write('notes.txt', `attempt ${attempt}`)), ProgressKind.Nothing);
    assert.equal(judgeProgress(memory, run('node t.js', 'fail 3600')), ProgressKind.Nothing);
  }
});

test('a command that changed files and printed something unseen brought information, even when its change is churn', () => {
  const memory = initialProgressMemory();
  const script = (output: string): ProgressCall => ({
    ...run('python t.py', output, CallEffect.Change),
    targets: ['t.py'],
  });
  assert.equal(judgeProgress(memory, { ...write('t.py', 'v1'), targets: ['t.py'] }), ProgressKind.NewState);
  // the same target right after the write: churn as a change, but its output is new
  assert.equal(judgeProgress(memory, script('result 1')), ProgressKind.NewInformation);
  assert.equal(memory.learned, true);
  // so the next write of the file is progress again
  assert.equal(judgeProgress(memory, { ...write('t.py', 'v2'), targets: ['t.py'] }), ProgressKind.NewState);
  // a command that printed what was seen, into a state seen: nothing (its check was used up)
  assert.equal(judgeProgress(memory, script('result 1')), ProgressKind.NewInformation);
  assert.equal(judgeProgress(memory, script('result 1')), ProgressKind.Nothing);
  // a file tool's result is not information: only its state speaks
  const same = write('t.py', 'v2');
  assert.equal(
    judgeProgress(memory, { ...same, resultText: 'Replaced the content of t.py (new text)' }),
    ProgressKind.Nothing,
  );
});

test('the self-assessment counts progress by the guards too: the later of the two marks', () => {
  assert.equal(lastProgressCycleOf({ recorded: undefined, broughtNew: undefined }), undefined);
  assert.equal(lastProgressCycleOf({ recorded: 4, broughtNew: undefined }), 4);
  assert.equal(lastProgressCycleOf({ recorded: undefined, broughtNew: 9 }), 9);
  assert.equal(lastProgressCycleOf({ recorded: 4, broughtNew: 9 }), 9);
  assert.equal(lastProgressCycleOf({ recorded: 12, broughtNew: 9 }), 12);
});
