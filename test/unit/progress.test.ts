import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CallEffect,
  initialProgressMemory,
  judgeProgress,
  MAX_REMEMBERED_RESULTS,
  ProgressKind,
  type ProgressCall,
} from '../../src/workflows/principles/progress';

const readOf = (resultText: string): ProgressCall => ({
  effect: CallEffect.Read,
  key: 'read_file {"path":"a"}',
  resultText,
  targets: ['a'],
  readsNamedPathsOnly: true,
});
const changeOf = (target: string, stateAfter: string | undefined, resultText = 'ok'): ProgressCall => ({
  effect: CallEffect.Change,
  key: `write_file {"path":"${target}","content":"${stateAfter ?? ''}"}`,
  resultText,
  ...(stateAfter === undefined ? {} : { stateAfter }),
  targets: [target],
});

test('a result the task has not seen is new information; the same result again is not', () => {
  const memory = initialProgressMemory();
  assert.equal(judgeProgress(memory, readOf('one')), ProgressKind.NewInformation);
  assert.equal(judgeProgress(memory, readOf('two')), ProgressKind.NewInformation);
  assert.equal(judgeProgress(memory, readOf(' one \n')), ProgressKind.Nothing);
  // a failure is information the first time only
  assert.equal(judgeProgress(memory, readOf('exit 1: 3 tests failed')), ProgressKind.NewInformation);
  assert.equal(judgeProgress(memory, readOf('exit 1: 3 tests failed')), ProgressKind.Nothing);
});

test('a change to a state the task has not seen is progress; back to an earlier state is not', () => {
  const memory = initialProgressMemory();
  assert.equal(judgeProgress(memory, changeOf('log.ts', 'debug')), ProgressKind.NewState);
  assert.equal(judgeProgress(memory, readOf('log.ts says debug')), ProgressKind.NewInformation);
  assert.equal(judgeProgress(memory, changeOf('log.ts', 'info')), ProgressKind.NewState);
  assert.equal(judgeProgress(memory, readOf('log.ts says info')), ProgressKind.NewInformation);
  assert.equal(judgeProgress(memory, changeOf('log.ts', 'debug')), ProgressKind.Nothing);
});

test('churn: one file rewritten with nothing learned in between counts once', () => {
  const memory = initialProgressMemory();
  const notes = (resultText: string) => ({
    ...readOf(resultText),
    key: 'read_file {"path":"notes.txt"}',
    targets: ['notes.txt'],
  });
  judgeProgress(memory, readOf('exit 1: failing'));
  judgeProgress(memory, notes('no notes yet'));
  assert.equal(judgeProgress(memory, changeOf('notes.txt', 'attempt 1')), ProgressKind.NewState);
  // a re-read of another path checks nothing of the change (fake progress: notes rewritten between
  // the same reads), and teaches nothing: churn stays churn
  assert.equal(judgeProgress(memory, readOf('exit 1: failing')), ProgressKind.Nothing);
  assert.equal(judgeProgress(memory, readOf('exit 1: failing')), ProgressKind.Nothing);
  assert.equal(judgeProgress(memory, changeOf('notes.txt', 'attempt 2')), ProgressKind.Nothing);
  assert.equal(judgeProgress(memory, changeOf('notes.txt', 'attempt 3')), ProgressKind.Nothing);
  // a re-read of the rewritten file itself checks it, once (issue 44: a file re-read after editing it)
  assert.equal(judgeProgress(memory, notes('exit 1: failing')), ProgressKind.NewInformation);
  assert.equal(judgeProgress(memory, notes('exit 1: failing')), ProgressKind.Nothing);
  // another file is another state of the task
  assert.equal(judgeProgress(memory, changeOf('src/fix.ts', 'the fix')), ProgressKind.NewState);
  // learning something between two changes of one file makes the second count
  assert.equal(judgeProgress(memory, readOf('exit 0: all pass')), ProgressKind.NewInformation);
  assert.equal(judgeProgress(memory, changeOf('src/fix.ts', 'the fix, tidied')), ProgressKind.NewState);
});

test('without a state digest the call and its result stand in for the state', () => {
  const memory = initialProgressMemory();
  const run = (output: string): ProgressCall => ({
    effect: CallEffect.Change,
    key: 'run_command {"command":"make"}',
    resultText: output,
    targets: [],
  });
  assert.equal(judgeProgress(memory, run('built 3 files')), ProgressKind.NewState);
  assert.equal(judgeProgress(memory, run('built 3 files')), ProgressKind.Nothing);
  assert.equal(judgeProgress(memory, run('built 4 files')), ProgressKind.NewState); // no targets: no churn rule
});

test('denied calls bring nothing; the memory stays bounded', () => {
  const memory = initialProgressMemory();
  assert.equal(
    judgeProgress(memory, { effect: CallEffect.Denied, key: 'x', resultText: 'denied', targets: [] }),
    ProgressKind.Nothing,
  );
  for (let index = 0; index < MAX_REMEMBERED_RESULTS + 50; index++)
    judgeProgress(memory, readOf(`r${index}`));
  assert.equal(memory.results.length, MAX_REMEMBERED_RESULTS);
});

test('a command re-run after a change checks it, whatever paths it names: its output may depend on any file', () => {
  const memory = initialProgressMemory();
  const script: ProgressCall = {
    effect: CallEffect.Read,
    key: 'run_command {"command":"python reproduce.py"}',
    resultText: 'TypeError: bad field',
    targets: ['reproduce.py'],
  };
  assert.equal(judgeProgress(memory, script), ProgressKind.NewInformation);
  assert.equal(judgeProgress(memory, changeOf('src/fields.py', 'a fix')), ProgressKind.NewState);
  // the same output after editing another file: it checked the edit (the fix did not help yet)
  assert.equal(judgeProgress(memory, script), ProgressKind.NewInformation);
  assert.equal(judgeProgress(memory, script), ProgressKind.Nothing);
  // and rewriting the same file again with nothing learned is churn
  assert.equal(judgeProgress(memory, changeOf('src/fields.py', 'another fix', 'ok 2')), ProgressKind.Nothing);
});
