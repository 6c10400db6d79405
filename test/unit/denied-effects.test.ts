import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  effectsOf,
  effectsOverlap,
  effectsText,
  MAX_EFFECTS,
  normalizePath,
  overlappingEffects,
  placeOf,
} from '../../src/workflows/principles/denied-effects';
import { intentOf, intentText, sameIntent } from '../../src/workflows/principles/call-intent';
import {
  DEFAULT_DENIAL_SETTINGS,
  observeDenial,
  type DeniedIntent,
} from '../../src/workflows/principles/denial-guard';
import { denialAlternatives } from '../../src/workflows/tools/denial-alternatives';
import { assessmentNote } from '../../src/workflows/planning/assessment';
import { systemPrompt } from '../../src/workflows/goal/model-turn/prompts';
import { newGoalState } from '../../src/workflows/goal/lifecycle/start';

/**
 * Issue 44: a denial is of effects. After `rm -rf build` was denied, the model emptied the files
 * in build/ with write_file and edit_file, and respelled the deletion as python, node and perl
 * one-liners; each was a new intent by text. These pin down what a call would delete, empty or
 * replace, and that one definition makes all of them the denied request.
 */

const command = (text: string) => effectsOf('run_command', { command: text });

test('deleting commands name what they delete, however spelled', () => {
  for (const text of [
    'rm -rf build',
    'rm -r ./build/',
    'rm -rf build/*',
    'find build -delete',
    'find build -type f -exec rm {} +',
    'cd build && rm -rf *',
    'cd build && rm -rf .',
    "bash -c 'rm -rf build'",
    'sudo rm -rf build',
    'rmdir build',
    'python3 -c "import shutil; shutil.rmtree(\'build\')"',
    "node -e \"require('fs').rmSync('build', { recursive: true })\"",
    'perl -e \'use File::Path; rmtree("build")\'',
    'ruby -e \'require "fileutils"; FileUtils.rm_rf("build")\'',
    'perl -e \'use File::Path qw(remove_tree); remove_tree("build")\'',
  ])
    assert.deepEqual(command(text), ['build'], text);
});

test('emptying or overwriting a file names that file: redirections, truncate, cp, sed -i, tee, dd, one-liners', () => {
  for (const text of [
    ': > build/a.txt',
    'echo hi >build/a.txt 2>&1',
    'echo hi >> build/a.txt',
    'truncate -s 0 build/a.txt',
    'cp /tmp/empty build/a.txt',
    'sed -i s/a/b/ build/a.txt',
    'echo | tee build/a.txt',
    'dd if=/dev/zero of=build/a.txt count=0',
    'cd build && : > a.txt',
    'mv build/a.txt',
    "python3 -c \"open('build/a.txt', 'w').close()\"",
    "node -e \"require('fs').writeFileSync('build/a.txt', '')\"",
  ])
    assert.deepEqual(command(text), ['build/a.txt'], text);
  assert.deepEqual(command('mv build dist'), ['build', 'dist']);
});

test('reading commands and read-only one-liners name no effects; modes, encodings and module names are no paths', () => {
  for (const text of [
    'cat build/a.txt',
    'ls -la build',
    'grep -r x build 2>/dev/null',
    'python3 -c "print(open(\'build/a.txt\').read())"',
    "node -e \"console.log(require('fs').readFileSync('build/a.txt', 'utf8'))\"",
    'python3 -c',
    'echo hi > /dev/null',
    'cd build',
  ])
    assert.deepEqual(command(text), [], text);
  assert.deepEqual(command("python3 -c \"open('x.txt', 'w', encoding='utf-8').write('a b')\""), ['x.txt']);
});

test('the file tools name their path; held changes add what was deleted or modified, not created', () => {
  assert.deepEqual(effectsOf('write_file', { path: './build/a.txt', content: '' }), ['build/a.txt']);
  assert.deepEqual(effectsOf('edit_file', { path: 'build/b.txt', oldString: 'a', newString: '' }), [
    'build/b.txt',
  ]);
  assert.deepEqual(effectsOf('read_file', { path: 'build/a.txt' }), []);
  assert.deepEqual(effectsOf('crm_update', { path: 'x' }), [], 'a custom tool: matched by its intent text');
  assert.deepEqual(effectsOf('run_command', null), []);
  assert.deepEqual(
    effectsOf(
      'run_command',
      { command: 'python3 clean.py' },
      { deleted: ['build/a.txt'], modified: ['b.txt'] },
    ),
    ['b.txt', 'build/a.txt'],
  );
  const many = Array.from({ length: 40 }, (_, index) => `f${String(index).padStart(2, '0')}`);
  assert.equal(effectsOf('run_command', { command: `rm ${many.join(' ')}` }).length, MAX_EFFECTS);
});

test('paths overlap when one is the other or inside it; the workspace itself and the root overlap nothing', () => {
  assert.equal(effectsOverlap(['build'], ['build/a.txt']), true);
  assert.equal(effectsOverlap(['build/a.txt'], ['build']), true);
  assert.equal(effectsOverlap(['build'], ['build']), true);
  assert.equal(effectsOverlap(['build'], ['builder/a.txt']), false, 'a prefix of the name is not inside it');
  assert.equal(effectsOverlap(['dist'], ['build']), false);
  assert.equal(effectsOverlap(['.'], ['src/x.ts']), false, 'one denial would hold every later write');
  assert.equal(effectsOverlap(['src/x.ts'], ['.']), false);
  assert.equal(effectsOverlap(['/'], ['src/x.ts']), false);
  assert.equal(effectsOverlap(['/ws'], ['src/x.ts'], '/ws'), false, 'the workspace by its absolute path');
  assert.equal(effectsOverlap([], ['build']), false);
  assert.deepEqual(overlappingEffects(['build/a.txt', 'src/b.txt'], ['build']), ['build/a.txt']);
  assert.deepEqual(normalizePath('$PWD/build/'), 'build');
  assert.deepEqual(normalizePath('*'), '.');
  assert.deepEqual(normalizePath('/'), '/');
  assert.deepEqual(normalizePath('./'), '.');
  assert.deepEqual(normalizePath('build/./a.txt'), 'build/a.txt');
  assert.equal(effectsText(['a', 'b']), 'a, b');
  assert.equal(effectsText(['a', 'b', 'c'], 2), 'a, b and 1 more');
});

test('one intent: every respelling and every file tool touching a denied deletion is the same request', () => {
  const denied = intentOf('run_command', { command: 'rm -rf build' });
  assert.deepEqual(denied.effects, ['build']);
  for (const [tool, input] of [
    ['write_file', { path: 'build/a.txt', content: '' }],
    ['edit_file', { path: 'build/b.txt', oldString: 'x', newString: '' }],
    ['run_command', { command: 'python3 -c "import shutil; shutil.rmtree(\'build\')"' }],
    ['run_command', { command: "node -e \"require('fs').rmSync('build', {recursive: true})\"" }],
  ] as const)
    assert.equal(sameIntent(denied, intentOf(tool, input)), true, `${tool} ${JSON.stringify(input)}`);
  assert.equal(sameIntent(denied, intentOf('write_file', { path: 'src/a.txt', content: '' })), false);
  assert.equal(sameIntent(denied, intentOf('read_file', { path: 'build/a.txt' })), false);
  // the text says what the one-liner would delete, first
  assert.match(
    intentText(intentOf('run_command', { command: 'python3 -c "import shutil; shutil.rmtree(\'build\')"' })),
    /^deleting or overwriting build \(run_command on /,
  );
  assert.equal(intentText(denied), 'run_command on build', 'effects the targets name are not repeated');
});

test('the denial guard counts a denial by effect through another tool toward the same stop', () => {
  const denied: DeniedIntent[] = [];
  const read = () => true;
  const first = observeDenial(
    denied,
    intentOf('run_command', { command: 'rm -rf build' }),
    DEFAULT_DENIAL_SETTINGS,
    read,
  );
  assert.equal(first.kind, 'warn');
  const second = observeDenial(
    denied,
    intentOf('write_file', { path: 'build/a.txt', content: '' }),
    DEFAULT_DENIAL_SETTINGS,
    read,
  );
  assert.deepEqual([second.kind, second.denials], ['none', 2]);
  const third = observeDenial(
    denied,
    intentOf('run_command', { command: 'perl -e \'unlink glob "build/*"\'' }),
    DEFAULT_DENIAL_SETTINGS,
    read,
  );
  assert.deepEqual([third.kind, third.denials], ['stop', 3]);
  assert.equal(denied.length, 1);
});

test('no note counts a denial as a failure or points at another way to the refused change', () => {
  const alternatives = denialAlternatives({
    catalogue: [
      {
        name: 'write_file',
        description: '',
        inputSchema: { type: 'object' },
        tier: { kind: 'fixed', tier: 'mutating' },
        source: 'builtin',
      },
      {
        name: 'read_file',
        description: '',
        inputSchema: { type: 'object' },
        tier: { kind: 'fixed', tier: 'read-only' },
        source: 'builtin',
      },
    ],
    toolName: 'run_command',
    reversibility: 'irreversible',
  }).join('\n');
  assert.doesNotMatch(alternatives, /write_file|Reach the result/);
  const note =
    assessmentNote(
      {
        findings: {
          progressed: false,
          stagnant: false,
          stagnantCycles: 0,
          ineffectiveTools: ['run_command'],
          memoryPressure: 0,
        },
        adjustments: [],
      },
      { run_command: { calls: 3, successes: 0 } },
    ) ?? '';
  assert.doesNotMatch(note, /other tools/);
  assert.match(note, /A call a human denied is no failure to work around/);
  // the system prompt told the model to "choose another way forward" after a denial
  const system = systemPrompt(newGoalState({ goal: 'g', workspace: '/w' }).config);
  assert.doesNotMatch(system, /another way/);
  assert.match(system, /what a human refused stays refused, through any tool/);
});

test('places: `..` resolved, absolute paths inside the workspace made relative, both sides', () => {
  assert.equal(placeOf('src/../build/a.txt'), 'build/a.txt');
  assert.equal(placeOf('/ws/build', '/ws'), 'build');
  assert.equal(placeOf('/ws/build/../src/', '/ws/'), 'src');
  assert.equal(placeOf('../ws/build', '/ws'), 'build');
  assert.equal(placeOf('/ws2/build', '/ws'), '/ws2/build');
  assert.equal(placeOf('/ws', '/ws'), '.');
  assert.deepEqual(command('cd /ws && rm -rf build'), ['/ws/build']);
  assert.equal(effectsOverlap(command('cd /ws && rm -rf build'), ['build/a.txt'], '/ws'), true);
  assert.equal(effectsOverlap(['build'], ['src/../build/a.txt'], '/ws'), true);
  assert.equal(effectsOverlap(['build'], ['build/../src/a.txt'], '/ws'), false);
  assert.deepEqual(overlappingEffects(['/ws/build/a.txt', 'src/x'], ['build'], '/ws'), ['build/a.txt']);
});

test('the workspace itself or the root is never an effect; find names what it deletes only when it can tell', () => {
  for (const text of [
    "find . -name '*.pyc' -delete",
    'find . -type f -name "*.o" -exec rm -f {} \\;',
    'find build -newer stamp -delete',
    'find build -exec cat {} +',
    'find build -type f',
    'rm -rf ./*',
    'rm -rf .',
    'rm -rf /',
    'cd build && rm -rf ..',
    'python3 -c "import shutil; shutil.rmtree(\'.\')"',
    "node -e \"require('fs').rmSync('./', {recursive: true})\"",
  ])
    assert.deepEqual(command(text), [], text);
  assert.deepEqual(command('find build dist -mindepth 1 -delete'), ['build', 'dist']);
  assert.deepEqual(command('find build -type f -exec rm -f {} \\;'), ['build']);
  assert.deepEqual(command('find . -delete; rm -rf build'), ['build'], 'the rest of the line still counts');
});

test('a one-liner writes only when open() is given a writing mode, not when the file name starts with a/w/x', () => {
  for (const text of [
    'python3 -c "print(open(\'app.log\').read())"',
    "python3 -c \"print(open('write.txt').read()); print(open('x.txt', 'r').read())\"",
    "python3 -c \"open('a.txt', 'rb').read()\"",
  ])
    assert.deepEqual(command(text), [], text);
  for (const text of [
    "python3 -c \"open('app.log', 'a').write('x')\"",
    "python3 -c \"open('app.log', mode='w').close()\"",
    "python3 -c \"open('app.log', 'r+').truncate(0)\"",
    "python3 -c \"open(str('app.log'), 'wb').close()\"",
    "python3 -c \"import pathlib; pathlib.Path('app.log').open('w').close()\"",
  ])
    assert.deepEqual(command(text), ['app.log'], text);
});
