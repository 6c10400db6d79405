import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  parseArguments,
  startsWithGlob,
  type OptionSpec,
  type ParsedArguments,
} from '../../src/workflows/tools/option-parser';
import { QUOTED_CHARACTER, type ShellWord } from '../../src/workflows/tools/shell-words';

/**
 * The option parser's rules, one by one (issue 27: mutation testing), on a made-up program whose
 * spec uses every kind of option: tools-classifier.test.ts judges real commands, where another
 * rule can give the same verdict; these state the exact options, operands and reasons.
 */

const plain = (text: string): ShellWord => ({ text, active: text });
const quoted = (text: string): ShellWord => ({ text, active: QUOTED_CHARACTER.repeat(text.length) });

const spec: OptionSpec = {
  flags: 'ab',
  valued: 'v',
  gluedValue: 'g',
  longFlags: ['all', 'brief'],
  longValued: ['value'],
  longOptional: ['color'],
  dangerous: { output: 'writes a file', x: 'runs a program' },
};

const parse = (words: ReadonlyArray<string | ShellWord>, with_: OptionSpec = spec): ParsedArguments =>
  parseArguments(
    'prog',
    words.map((word) => (typeof word === 'string' ? plain(word) : word)),
    with_,
  );

function parsed(words: ReadonlyArray<string | ShellWord>, with_: OptionSpec = spec) {
  const result = parse(words, with_);
  assert.ok(result.ok, result.ok ? '' : result.reason);
  return { options: result.options, positionals: result.positionals.map((word) => word.text) };
}

function refused(words: ReadonlyArray<string | ShellWord>, with_: OptionSpec = spec): string {
  const result = parse(words, with_);
  assert.equal(result.ok, false);
  return result.ok ? '' : result.reason;
}

test('operands are words that do not start with -, a lone -, and every word after --', () => {
  assert.deepEqual(parsed(['x', '-', 'y', '--', '-a', '--all', '--']), {
    options: [],
    positionals: ['x', '-', 'y', '-a', '--all', '--'],
  });
  // Options may follow operands, as with getopt_long.
  assert.deepEqual(parsed(['x', '-a']), { options: [{ name: 'a' }], positionals: ['x'] });
});

test('short flags cluster; a valued letter takes the rest of the word, else the next word', () => {
  assert.deepEqual(parsed(['-ab', '-vx', 'y']), {
    options: [{ name: 'a' }, { name: 'b' }, { name: 'v', value: 'x' }],
    positionals: ['y'],
  });
  assert.deepEqual(parsed(['-av', 'file', 'y']), {
    options: [{ name: 'a' }, { name: 'v', value: 'file' }],
    positionals: ['y'],
  });
  // The rest of the word is the value, even if it looks like letters: -vab is -v with "ab".
  assert.deepEqual(parsed(['-vab']).options, [{ name: 'v', value: 'ab' }]);
  assert.equal(refused(['-a', '-v']), 'prog -v needs a value it can see');
});

test('a glued-value letter takes the rest of the word or nothing, never the next word', () => {
  assert.deepEqual(parsed(['-g', 'y']), { options: [{ name: 'g' }], positionals: ['y'] });
  assert.deepEqual(parsed(['-ag50%', 'y']), {
    options: [{ name: 'a' }, { name: 'g', value: '50%' }],
    positionals: ['y'],
  });
});

test('long options: flags take no value, valued ones take = or the next word, optional ones only =', () => {
  assert.deepEqual(parsed(['--all', '--value=1', '--value', '2', '--color', '3', '--color=auto']), {
    options: [
      { name: 'all' },
      { name: 'value', value: '1' },
      { name: 'value', value: '2' },
      { name: 'color' },
      { name: 'color', value: 'auto' },
    ],
    positionals: ['3'],
  });
  assert.deepEqual(parsed(['--value=']).options, [{ name: 'value', value: '' }]);
  assert.equal(refused(['--all=yes']), 'prog --all takes no value');
  assert.equal(refused(['--value']), 'prog --value needs a value it can see');
});

test('an unknown option is refused by name; a dangerous one with why, a long prefix as a possible abbreviation', () => {
  assert.equal(refused(['-z']), 'prog -z is not a known read-only option');
  assert.equal(refused(['-az']), 'prog -z is not a known read-only option');
  assert.equal(refused(['--zap']), 'prog --zap is not a known read-only option');
  assert.equal(refused(['-x']), 'prog -x runs a program');
  assert.equal(refused(['--output=f']), 'prog --output writes a file');
  assert.equal(refused(['--out']), 'prog --out may abbreviate --output, which writes a file');
  assert.equal(refused(['--o=f']), 'prog --o may abbreviate --output, which writes a file');
  // A short letter is never read as an abbreviation; a one-letter dangerous name is no long
  // option's prefix target, and an empty long name abbreviates nothing.
  assert.equal(refused(['-o']), 'prog -o is not a known read-only option');
  assert.equal(refused(['--x']), 'prog --x is not a known read-only option');
  assert.equal(refused(['--=1']), 'prog -- is not a known read-only option');
  // Exact names win over prefixes: --all is a flag even though it starts --a…
  assert.equal(refused(['--al']), 'prog --al is not a known read-only option');
});

test('-NUM is one option only for a program that has it, and only as a whole word', () => {
  const withNumbers: OptionSpec = { ...spec, numberOption: true };
  assert.deepEqual(parsed(['-20', 'f'], withNumbers), {
    options: [{ name: '#', value: '20' }],
    positionals: ['f'],
  });
  assert.equal(refused(['-20']), 'prog -2 is not a known read-only option');
  assert.equal(refused(['-20a'], withNumbers), 'prog -2 is not a known read-only option');
});

test("tree's values come from the next words, even inside a cluster, and the cluster goes on", () => {
  const tree: OptionSpec = { flags: 'a', valued: 'LI', valuesFromNextWords: true };
  assert.deepEqual(parsed(['-LaI', '2', 'node_modules', 'src'], tree), {
    options: [{ name: 'L', value: '2' }, { name: 'a' }, { name: 'I', value: 'node_modules' }],
    positionals: ['src'],
  });
  assert.equal(refused(['-L'], tree), 'prog -L needs a value it can see');
});

test('a word or a value that starts with an active glob is refused unless the program makes globs harmless', () => {
  assert.equal(refused(['*']), '* may expand to file names that prog reads as options');
  assert.equal(refused(['?x']), '?x may expand to file names that prog reads as options');
  assert.equal(refused(['[ab]']), '[ab] may expand to file names that prog reads as options');
  assert.equal(refused(['-v', '*.txt']), '*.txt may expand to file names that prog reads as options');
  assert.equal(refused(['--value', '*']), '* may expand to file names that prog reads as options');
  // Quoted, later in the word, or after --: no expansion reaches the options.
  assert.deepEqual(parsed([quoted('*'), 'a*', '-v', quoted('*x'), '--', '*']).positionals, ['*', 'a*', '*']);
  const harmless: OptionSpec = { ...spec, globsAreHarmless: true };
  assert.deepEqual(parsed(['*', '-v', '*'], harmless), {
    options: [{ name: 'v', value: '*' }],
    positionals: ['*'],
  });
  assert.equal(startsWithGlob(plain('x*')), false);
  assert.equal(startsWithGlob(plain('*x')), true);
});
