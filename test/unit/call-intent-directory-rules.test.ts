import { test } from 'node:test';
import assert from 'node:assert/strict';
import { intentOf, sameIntent } from '../../src/workflows/principles/call-intent';

/**
 * Call intent and `cd`: the recorded trajectories start 1,413 of their 3,436 commands with
 * `cd /testbed &&`. The directory was a target, so any two such commands were one intent (18,445
 * of the 19,721 pairs of different commands in one run that shared a target shared only that),
 * and a human's "deny, do not ask again" on one refused the others unasked. A directory changed to
 * is where the commands after it run: it names what `.` or a bare glob means there, nothing else.
 */

const shell = (command: string) => intentOf('run_command', { command });
const targetsOf = (command: string) => shell(command).targets;

test('cd names no target: cd /testbed && X and cd /testbed && Y are about what X and Y name', () => {
  assert.deepEqual(targetsOf('cd /testbed && python reproduce_issue.py'), ['reproduce_issue.py']);
  assert.deepEqual(targetsOf("cd /testbed && cat > test_fix.py << 'EOF'\nprint(1)\nEOF"), ['test_fix.py']);
  assert.equal(
    sameIntent(shell('cd /testbed && python reproduce_issue.py'), shell('cd /testbed && rm -rf build')),
    false,
  );
  assert.equal(sameIntent(shell('cd /testbed && rm -rf build'), shell('rm -r build/')), true);
  assert.deepEqual(targetsOf('cd /testbed'), []);
  assert.deepEqual(targetsOf('pushd src; ls lib; popd'), ['lib']);
});

test('after cd DIR, the . or bare glob a command names is DIR: cd build && rm -rf * is about build', () => {
  for (const here of ['*', '.', './', './*', '.*']) {
    assert.deepEqual(targetsOf(`cd build && rm -rf ${here}`), ['build'], here);
  }
  assert.equal(sameIntent(shell('cd build && rm -rf *'), shell('rm -rf build')), true);
  assert.equal(sameIntent(shell('cd src && rm -rf *'), shell('cd docs && rm -rf *')), false);
  // Only the bare ones: anything else a command names is its own target.
  assert.deepEqual(targetsOf('cd build && rm -rf /'), ['/']);
  assert.deepEqual(targetsOf('cd build && rm -rf ../dist *.o'), ['*.o', '../dist']);
});

test('a relative cd goes on from the one before, an absolute one starts over, and options are no directory', () => {
  assert.deepEqual(targetsOf('cd src && cd lib && rm -rf *'), ['src/lib']);
  assert.deepEqual(targetsOf('cd src; cd /tmp/x; rm -rf .'), ['/tmp/x']);
  assert.deepEqual(targetsOf('cd -P ./build/ && rm -rf *'), ['build']);
  assert.deepEqual(targetsOf('pushd build && rm -rf *'), ['build']);
});

test('where the words do not show the directory (cd, cd -, cd ~, cd $DIR, popd), . and * stay as they are', () => {
  for (const change of ['cd', 'cd -', 'cd ~', 'cd ~/work', 'cd $DIR', 'cd a b', 'cd build && popd']) {
    assert.deepEqual(targetsOf(`${change} && rm -rf *`), ['*'], change);
  }
});

test('a command the tokenizer refuses reads cd the same way', () => {
  assert.deepEqual(targetsOf('cd /testbed && python -c "print(1)" > out.txt 2>&1'), ['out.txt', 'print(1)']);
  assert.deepEqual(targetsOf('cd build && rm -rf * 2>/dev/null'), ['build']);
});
