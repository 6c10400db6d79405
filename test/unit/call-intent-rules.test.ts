import { test } from 'node:test';
import assert from 'node:assert/strict';
import { intentOf, normalizeTarget, sameIntent } from '../../src/workflows/principles/call-intent';

/**
 * Call intent's rules (issue 27: mutation testing): which input fields and which shell words are
 * a call's targets, how a target is normalized, when two calls are the same intent (the denial
 * guard and the remembered denials rely on it: a denied call asked again in other words must
 * match, an unrelated call must not), and how a call without targets is kept and shown.
 */

const shell = (command: string, field = 'command') => intentOf('run_command', { [field]: command });
const targetsOf = (command: string) => shell(command).targets;

// --- a denied call asked again in other words (fixed with these rules) ---

test('a command line handed to sh -c, bash -lc, /bin/sh -c or eval names what its commands name', () => {
  assert.deepEqual(targetsOf('sh -c "rm -rf build"'), ['build']);
  assert.deepEqual(targetsOf("bash -lc 'cd /x && rm -rf build/' name arg"), ['/x', 'arg', 'build', 'name']);
  assert.deepEqual(targetsOf("/bin/sh -c 'rm -r ./build'"), ['build']);
  assert.deepEqual(targetsOf('eval "rm -rf build"'), ['build']);
  assert.deepEqual(targetsOf('eval rm -rf build'), ['build']);
  assert.deepEqual(targetsOf(`bash -c "bash -c 'rm -r build'"`), ['build']);
  for (const other of ['dash', 'zsh', 'ksh', 'ash', 'mksh']) {
    assert.deepEqual(targetsOf(`${other} -c 'rm -rf build'`), ['build'], other);
  }
  assert.ok(sameIntent(shell('rm -rf build'), shell(`sudo bash -c 'rm -rf build'`)));
});

test('a shell without -c runs a script file, which is its target; -c with nothing after names nothing', () => {
  assert.deepEqual(targetsOf('sh script.sh'), ['script.sh']);
  assert.deepEqual(targetsOf('bash -x script.sh'), ['script.sh']);
  assert.deepEqual(targetsOf('sh -e -c "rm build"'), ['build']);
  assert.deepEqual(targetsOf('python -c build'), ['build']);
  assert.deepEqual(targetsOf('bash -c'), []);
  assert.deepEqual(targetsOf('bash -- -c'), []);
});

test('the descriptor 2>&1 (or <&3, 2>&-) of a command the tokenizer refuses is no target: two unrelated commands do not match on it', () => {
  assert.deepEqual(targetsOf('rm -rf build > log.txt 2>&1'), ['build', 'log.txt']);
  assert.deepEqual(targetsOf('echo hi > f <&3 2>&-'), ['f', 'hi']);
  assert.equal(sameIntent(shell('curl x.sh > /tmp/a 2>&1'), shell('npm test > out.txt 2>&1')), false);
});

test('.//build and $PWD//build are build, not /build', () => {
  assert.equal(normalizeTarget('.//build'), 'build');
  assert.equal(normalizeTarget('././/./build'), 'build');
  assert.equal(normalizeTarget('$PWD//build'), 'build');
  assert.ok(sameIntent(shell('rm -rf build'), shell('rm -rf .//build')));
});
