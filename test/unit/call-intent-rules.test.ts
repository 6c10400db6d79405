import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resultDigest } from '../../src/workflows/principles/loop-guard';
import {
  callIntentSchema,
  intentOf,
  intentText,
  normalizeTarget,
  sameIntent,
  type CallIntent,
} from '../../src/workflows/principles/call-intent';

/**
 * Call intent's rules (issue 27: mutation testing): which input fields and which shell words are
 * a call's targets, how a target is normalized, when two calls are the same intent (the denial
 * guard and the remembered denials rely on it: a denied call asked again in other words must
 * match, an unrelated call must not), and how a call without targets is kept and shown.
 */

const shell = (command: string, field = 'command') => intentOf('run_command', { [field]: command });
const withTargets = (tool: string, targets: string[]): CallIntent => ({ tool, targets, call: '' });
const targetsOf = (command: string) => shell(command).targets;

// --- a denied call asked again in other words (fixed with these rules) ---

test('a command line handed to sh -c, bash -lc, /bin/sh -c or eval names what its commands name', () => {
  assert.deepEqual(targetsOf('sh -c "rm -rf build"'), ['build']);
  assert.deepEqual(targetsOf("bash -lc 'cd /x && rm -rf build/' name arg"), ['arg', 'build', 'name']);
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
  assert.deepEqual(targetsOf("bash -ce 'rm build'"), ['build']);
  assert.deepEqual(targetsOf('bash a-c build'), ['a-c', 'build']);
  assert.deepEqual(targetsOf('bash -c9 build'), ['build']);
  assert.deepEqual(targetsOf('bash -C build'), ['build']);
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

// --- targets of input fields ---

test('each path-like field names a target: path, paths, file, files, filePath, file_path, filename, target, targets, directory, dir, source, destination, from, to, url, uri', () => {
  for (const field of [
    'path',
    'paths',
    'file',
    'files',
    'filePath',
    'file_path',
    'filename',
    'target',
    'targets',
    'directory',
    'dir',
    'source',
    'destination',
    'from',
    'to',
    'url',
    'uri',
  ]) {
    assert.deepEqual(
      intentOf('tool', { [field]: './a/' }),
      { tool: 'tool', targets: ['a'], call: '' },
      field,
    );
  }
});

test('other fields name no target: the call is kept whole, normalized', () => {
  assert.deepEqual(intentOf('deploy', { environment: ' production  now ', Path: 'x' }), {
    tool: 'deploy',
    targets: [],
    call: 'deploy {"Path":"x","environment":"production now"}',
  });
});

test('a field holds a string or a list of them; other items and values name nothing', () => {
  assert.deepEqual(intentOf('t', { paths: ['b', 1, 'a', null] }).targets, ['a', 'b']);
  assert.deepEqual(intentOf('t', { path: 7, files: { a: 'x' } }), {
    tool: 't',
    targets: [],
    call: 't {"files":{"a":"x"},"path":7}',
  });
});

test('blank targets and /dev/... (surrounding spaces trimmed) name nothing; /dev elsewhere in a path is a target', () => {
  assert.deepEqual(
    intentOf('t', { paths: ['  ', '', ' /dev/null', '/dev/stderr', 'x/dev/', '/devices'] }).targets,
    ['/devices', 'x/dev'],
  );
});

test('input that is not an object (null, undefined, a string, a list) names no target and is kept whole', () => {
  assert.deepEqual(intentOf('t', null), { tool: 't', targets: [], call: 't null' });
  assert.deepEqual(intentOf('t', undefined), { tool: 't', targets: [], call: 't null' });
  assert.deepEqual(intentOf('t', 'path'), { tool: 't', targets: [], call: 't "path"' });
  const list = Object.assign(['a'], { path: 'b' });
  assert.deepEqual(intentOf('t', list), { tool: 't', targets: [], call: 't ["a"]' });
});

test('targets are sorted, deduplicated, and at most 16 kept (the first 16 in order)', () => {
  const paths = Array.from({ length: 18 }, (_, index) => `f${String(17 - index).padStart(2, '0')}`);
  const expected = Array.from({ length: 16 }, (_, index) => `f${String(index).padStart(2, '0')}`);
  assert.deepEqual(intentOf('t', { paths: [...paths, 'f00', './f01'] }).targets, expected);
  assert.deepEqual(intentOf('t', { paths: paths.slice(2) }).targets, expected);
});

// --- targets of a shell command ---

test('command, cmd and script hold a command line; only as a string', () => {
  for (const field of ['command', 'cmd', 'script']) {
    assert.deepEqual(
      shell('rm -rf ./build/', field),
      { tool: 'run_command', targets: ['build'], call: '', effects: ['build'] },
      field,
    );
  }
  assert.deepEqual(intentOf('run_command', { command: ['rm', 'build'] }), {
    tool: 'run_command',
    targets: [],
    call: 'run_command {"command":["rm","build"]}',
  });
});

test('each wrapper is skipped with the program it runs: sudo, env, nice, nohup, time, timeout, xargs', () => {
  for (const wrapper of ['sudo', 'env', 'nice', 'nohup', 'time', 'timeout', 'xargs']) {
    assert.deepEqual(targetsOf(`${wrapper} rm build`), ['build'], wrapper);
  }
  assert.deepEqual(targetsOf('sudo env nice rm build'), ['build']);
  assert.deepEqual(targetsOf('timeout 10 rm build'), ['build', 'rm']);
  assert.deepEqual(targetsOf('doas rm build'), ['build', 'rm']);
});

test('assignments before the program are skipped: NAME=value, A_9=1, _x=; not ./run=1 or 9A=1 (programs)', () => {
  assert.deepEqual(targetsOf('A_9=1 _x= Ab=2 rm build'), ['build']);
  assert.deepEqual(targetsOf('./run=1 build'), ['build']);
  assert.deepEqual(targetsOf('9A=1 build'), ['build']);
  assert.deepEqual(targetsOf('A=1'), []);
});

test('options and bare numbers are not targets; 2a, a2 and a-b are', () => {
  assert.deepEqual(targetsOf('rm -rf --force -- 2 10 2a a2 a-b'), ['2a', 'a-b', 'a2']);
});

test('every simple command of a line names its targets', () => {
  assert.deepEqual(targetsOf('mkdir src && rm a; ls b | grep c || cat d'), ['a', 'b', 'c', 'd', 'src']);
});

test('a command the tokenizer refuses is split on whitespace and on &&, ||, ;, | and newlines', () => {
  assert.deepEqual(targetsOf('echo a > o && rm b'), ['a', 'b', 'o']);
  assert.deepEqual(targetsOf('echo a > o || rm b'), ['a', 'b', 'o']);
  assert.deepEqual(targetsOf('echo a > o; rm b'), ['a', 'b', 'o']);
  assert.deepEqual(targetsOf('echo a > o | rm b'), ['a', 'b', 'o']);
  assert.deepEqual(targetsOf('echo a > o\nrm b'), ['a', 'b', 'o']);
  assert.deepEqual(targetsOf('echo  a\t> o   b'), ['a', 'b', 'o']);
});

test('a refused command: redirection marks go from the file they write (>o, 2>>o, 12>o), a & alone and bare marks are no targets, and a mark inside or at the end of a word stays', () => {
  assert.deepEqual(targetsOf('echo a >o1 2>>o2 12>o3 & > o4 >> o5 a>b c>'), [
    'a',
    'a>b',
    'c>',
    'o1',
    'o2',
    'o3',
    'o4',
    'o5',
  ]);
});

test('a refused command still skips wrappers, assignments and options', () => {
  assert.deepEqual(targetsOf('X=1 sudo rm -rf build > log'), ['build', 'log']);
});

// --- normalizing a target ---

test('normalizeTarget: spaces around, a leading $PWD/, ${PWD}/, $(pwd)/ or ./ (repeated), trailing globs and slashes go', () => {
  const cases: [string, string][] = [
    ['  build  ', 'build'],
    ['$PWD/build', 'build'],
    ['${PWD}/build', 'build'],
    ['$(pwd)/build', 'build'],
    ['./././build', 'build'],
    ['build/*', 'build'],
    ['build/**', 'build'],
    ['build/*/**', 'build'],
    ['build///', 'build'],
    ['build/*/', 'build/*'],
    ['', '.'],
    ['.', '.'],
    ['./', '.'],
    // the root is not the workspace: `rm -rf /` is not `rm -rf .`
    ['/', '/'],
    ['///', '/'],
    ['$PWD/', '.'],
  ];
  for (const [text, target] of cases) assert.equal(normalizeTarget(text), target, JSON.stringify(text));
});

test('normalizeTarget keeps what is not a leading or trailing part: a/./b, a/$PWD/b, x$PWD/b, build/*/x, a*, Build', () => {
  for (const text of [
    'a/./b',
    'a/$PWD/b',
    'x$PWD/b',
    'a.//b',
    'build/*/x',
    'a*',
    'Build',
    '$PWDx/b',
    '../b',
    '.b/c',
  ]) {
    assert.equal(normalizeTarget(text), text, text);
  }
  assert.equal(normalizeTarget('$PWD'), '$PWD');
});

// --- the same intent ---

test('the same tool with a target in common is the same intent, whatever else either names', () => {
  assert.equal(sameIntent(withTargets('t', ['a', 'b']), withTargets('t', ['c', 'b'])), true);
  assert.equal(sameIntent(withTargets('t', ['b']), withTargets('t', ['a', 'b', 'c'])), true);
  assert.equal(sameIntent(withTargets('t', ['a', 'b']), withTargets('t', ['c', 'd'])), false);
  assert.equal(sameIntent(withTargets('t', ['a']), withTargets('u', ['a'])), false);
});

test('a call without targets is the same intent only as the very same call (same tool, same kept call)', () => {
  const call = (tool: string, text: string): CallIntent => ({ tool, targets: [], call: text });
  assert.equal(sameIntent(call('t', 't {}'), call('t', 't {}')), true);
  assert.equal(sameIntent(call('t', 't {}'), call('t', 't {"a":1}')), false);
  assert.equal(sameIntent(call('t', 'x'), call('u', 'x')), false);
  assert.equal(sameIntent(call('t', ''), withTargets('t', ['a'])), true);
  assert.equal(sameIntent(withTargets('t', ['a']), call('t', '')), true);
  assert.equal(sameIntent(call('t', 't {}'), withTargets('t', ['a'])), false);
  assert.equal(sameIntent(withTargets('t', ['a']), call('t', 't {}')), false);
});

// --- keeping and showing a call ---

test('a target-less call up to 1,000 chars is kept whole; past that as its first 200 chars, its length and an FNV-1a checksum', () => {
  const input = (length: number) => ({ text: 'x'.repeat(length) });
  // 't {"text":""}' is 13 characters
  const whole = intentOf('t', input(987));
  assert.equal(whole.call, `t {"text":"${'x'.repeat(987)}"}`);
  assert.equal(whole.call.length, 1000);
  const long = intentOf('t', input(988));
  const call = `t {"text":"${'x'.repeat(988)}"}`;
  assert.deepEqual(long, {
    tool: 't',
    targets: [],
    call: `${call.slice(0, 200)}… (1001 chars, fnv1a ${resultDigest(call)})`,
  });
});

test('intentText: "<tool> on <targets, comma-separated>", or the kept call; cut to 200 chars plus an ellipsis', () => {
  assert.equal(intentText(withTargets('run_command', ['build', 'dist'])), 'run_command on build, dist');
  assert.equal(intentText({ tool: 't', targets: [], call: 't {"a":1}' }), 't {"a":1}');
  const at200 = 'y'.repeat(200);
  assert.equal(intentText({ tool: 't', targets: [], call: at200 }), at200);
  assert.equal(intentText({ tool: 't', targets: [], call: `${at200}z` }), `${at200}…`);
  assert.equal(intentText(withTargets('t', ['p'.repeat(196)])), `t on ${'p'.repeat(195)}…`);
});

test('the schema holds a tool, a list of targets and the kept call', () => {
  const intent = { tool: 't', targets: ['a'], call: '' };
  assert.deepEqual(callIntentSchema.parse(intent), intent);
  for (const bad of [
    { ...intent, tool: 1 },
    { ...intent, targets: [1] },
    { ...intent, call: undefined },
    { tool: 't', call: '' },
  ]) {
    assert.equal(callIntentSchema.safeParse(bad).success, false, JSON.stringify(bad));
  }
});
