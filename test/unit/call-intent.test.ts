import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  intentOf,
  intentText,
  normalizeTarget,
  sameIntent,
} from '../../src/workflows/principles/call-intent';

const shell = (command: string) => intentOf('run_command', { command });

test('one intent however the deletion is spelled: same tool, same target', () => {
  const denied = shell('rm -rf build');
  for (const respelled of [
    'rm -r ./build',
    'find build -delete',
    'rm -rf build/*',
    'sudo rm -rf ./build/',
    'rm -rf $(pwd)/build',
    'cd build && rm -rf .',
  ]) {
    assert.ok(sameIntent(denied, shell(respelled)), respelled);
  }
});

test('another target is another intent; another tool is too, unless it would change what the denied call would', () => {
  const denied = shell('rm -rf build');
  assert.equal(sameIntent(denied, shell('rm -rf dist')), false);
  assert.equal(sameIntent(denied, intentOf('read_file', { path: 'build' })), false);
  assert.equal(sameIntent(denied, intentOf('write_file', { path: 'dist/a.txt', content: '' })), false);
  // issue 44: a denial is of effects (denied-effects.ts)
  assert.equal(sameIntent(denied, intentOf('write_file', { path: 'build', content: '' })), true);
});

test('path fields of file tools are targets; a call naming none matches only itself', () => {
  assert.deepEqual(intentOf('write_file', { path: './src/a.ts', content: 'x' }).targets, ['src/a.ts']);
  assert.ok(
    sameIntent(
      intentOf('edit_file', { path: 'src/a.ts', oldString: 'a', newString: 'b' }),
      intentOf('edit_file', { path: 'src//a.ts'.replace('//', '/'), oldString: 'c', newString: 'd' }),
    ),
  );
  const deploy = intentOf('deploy', { environment: 'production' });
  assert.deepEqual(deploy.targets, []);
  assert.ok(sameIntent(deploy, intentOf('deploy', { environment: ' production ' })));
  assert.equal(sameIntent(deploy, intentOf('deploy', { environment: 'staging' })), false);
});

test('options, program names, wrappers and assignments are not targets', () => {
  assert.deepEqual(shell('FORCE=1 sudo rm -rf -- build 2').targets, ['build']);
  assert.equal(intentText(shell('rm -rf build')), 'run_command on build');
});

test('normalizeTarget: ./, trailing slashes and a trailing glob go', () => {
  assert.equal(normalizeTarget('./build/'), 'build');
  assert.equal(normalizeTarget('build/**'), 'build');
  assert.equal(normalizeTarget('./'), '.');
});

test('a command with redirections: operators are not targets, the files written are', () => {
  assert.deepEqual(shell('echo more >> notes.txt && rm -r build').targets, ['build', 'more', 'notes.txt']);
  assert.deepEqual(shell('echo a > out.txt').targets, ['a', 'out.txt']);
  assert.equal(sameIntent(shell('echo a > out.txt'), shell('echo b >other.txt')), false);
  assert.ok(sameIntent(shell('rm -rf build'), shell('rm -rf build 2>/dev/null || true')));
  assert.equal(sameIntent(shell('rm -rf build 2>/dev/null'), shell('npm test 2>/dev/null')), false);
});
