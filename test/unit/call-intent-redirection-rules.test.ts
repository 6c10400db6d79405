import { test } from 'node:test';
import assert from 'node:assert/strict';
import { intentOf, sameIntent } from '../../src/workflows/principles/call-intent';

/**
 * Call intent's redirection rules for a command the tokenizer refuses (issue 27: Stryker found
 * the old "any run of < and >" pattern untested, and it missed bash's marks): each mark goes from
 * the file it names, a duplicated descriptor names no file, and no mark is a target of its own.
 * Two unrelated commands that both end with `&>/dev/null` matched as one intent, so one denial
 * answered the other.
 */

const shell = (command: string) => intentOf('run_command', { command });
const targetsOf = (command: string) => shell(command).targets;

test("bash's &> and &>> (stdout and stderr) are marks: two commands ending with &>/dev/null are not one intent", () => {
  assert.deepEqual(targetsOf('rm -rf build &>/dev/null'), ['build']);
  assert.deepEqual(targetsOf('npm test &> /dev/null'), ['test']);
  assert.deepEqual(targetsOf('make all &>>build.log'), ['all', 'build.log']);
  assert.equal(sameIntent(shell('rm -rf build &>/dev/null'), shell('npm test &>/dev/null')), false);
  assert.equal(sameIntent(shell('rm -rf build &>/dev/null'), shell('rm -r build')), true);
});

test('>&file writes the file (bash): the file is the target, not &file', () => {
  assert.deepEqual(targetsOf('cat x >&out.txt'), ['out.txt', 'x']);
  assert.deepEqual(targetsOf('rm -rf build >&/dev/null'), ['build']);
});

test('>| (write even with noclobber) is a redirection, not a pipe: the file it writes is a target', () => {
  assert.deepEqual(targetsOf('echo a >|log.txt'), ['a', 'log.txt']);
  assert.deepEqual(targetsOf('echo a >| log.txt'), ['a', 'log.txt']);
  // a pipe still ends a command: the program after it is no target
  assert.deepEqual(targetsOf('echo a > o | tee copy'), ['a', 'copy', 'o']);
});

test('a duplicated descriptor (1>&2, >&2-, 2>&-, <&3) names no file; >>2- appends to the file 2-', () => {
  assert.deepEqual(targetsOf('echo a > o 1>&2 >&2- 2>&- <&3'), ['a', 'o']);
  assert.deepEqual(targetsOf('cat a >>2- b > o'), ['2-', 'a', 'b', 'o']);
  assert.deepEqual(targetsOf('cat a >2- > o'), ['2-', 'a', 'o']);
});

test('<> and <<< are marks: what follows them is the word they read', () => {
  assert.deepEqual(targetsOf('cat 3<>fifo > o'), ['fifo', 'o']);
  assert.deepEqual(targetsOf('cat <> fifo > o'), ['fifo', 'o']);
  assert.deepEqual(targetsOf('grep x <<<text > o'), ['o', 'text', 'x']);
  assert.deepEqual(targetsOf('grep x <<< text > o'), ['o', 'text', 'x']);
});

test('quotes are followed: a quoted script is one target, so two python -c scripts are not one intent by a shared `=`', () => {
  const first = shell("python -c \"\nimport os\nos.environ['A'] = '1'\nprint(os.getcwd())\n\" 2>&1");
  const second = shell('python -c "\nx = 2\nprint(x)\n" 2>&1');
  assert.equal(first.targets.length, 1);
  assert.equal(sameIntent(first, second), false);
  assert.deepEqual(targetsOf('rm -rf "build" 2>/dev/null'), ['build']);
  assert.equal(sameIntent(shell("rm -rf 'build' &>/dev/null"), shell('rm -r build')), true);
});
