import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  globMatches,
  MAX_PATTERN_LENGTH,
  type PatternFlavour,
} from '../../src/workflows/approvals/rule-pattern';

/**
 * The rules of approval-rule patterns (rule-pattern.ts; issue 27: mutation testing), read as an
 * attacker would: a model shaping a path or a command so that a narrow allow pattern covers
 * something wider, or a forbid pattern stops matching. In paths `*` and `?` stay in one segment,
 * `**` crosses segments and `**\/` also matches no segment; in text `*` and `?` cross everything;
 * every other character is itself (case, dots, brackets, look-alikes); a pattern covers the whole
 * subject, both ends anchored; and the matching takes no longer than pattern × subject.
 */

/** Each [subject, whether the pattern covers it]. */
function expect(pattern: string, flavour: PatternFlavour, cases: ReadonlyArray<readonly [string, boolean]>) {
  const got = cases.map(([subject]) => [subject, globMatches(pattern, subject, flavour)] as const);
  assert.deepEqual(got, cases, `${flavour} pattern ${pattern}`);
}

test('a pattern has at most 1000 characters', () => {
  assert.equal(MAX_PATTERN_LENGTH, 1000);
});

test('a literal pattern covers exactly its own text: both ends are anchored, case and every character count', () => {
  for (const flavour of ['path', 'text'] as const) {
    expect('src/a.ts', flavour, [
      ['src/a.ts', true],
      ['src/a.tsx', false],
      ['xsrc/a.ts', false],
      ['src/a.t', false],
      ['SRC/a.ts', false],
      ['src/a.ts/', false],
      ['src/axts', false],
      ['ѕrc/a.ts', false], // a Cyrillic ѕ, not s
      ['', false],
    ]);
  }
  expect('', 'text', [
    ['', true],
    ['a', false],
  ]);
  expect('(x)+[a]{1}^$|\\', 'text', [
    ['(x)+[a]{1}^$|\\', true],
    ['(x)(x)+a{1}^$|\\', false],
  ]);
});

test('a path `*` covers any characters within one segment, none included, never a slash', () => {
  expect('src/*.ts', 'path', [
    ['src/.ts', true],
    ['src/a.ts', true],
    ['src/a b.ts', true],
    ['src/deep/a.ts', false],
    ['src/../a.ts', false],
    ['src//a.ts', false],
    ['src/a.ts.bak', false],
  ]);
  expect('a*', 'path', [
    ['a', true],
    ['abc', true],
    ['', false],
    ['a/', false],
    ['ba', false],
  ]);
  expect('*', 'path', [
    ['', true],
    ['anything', true],
    ['a/b', false],
    ['/', false],
  ]);
});

test('a path `*/` is one segment and its slash, never no segment and never several', () => {
  expect('src/*/a', 'path', [
    ['src/x/a', true],
    ['src//a', true],
    ['src/a', false],
    ['src/x/y/a', false],
  ]);
});

test('a path `?` covers exactly one character that is not a slash; one emoji is one character', () => {
  expect('a?c', 'path', [
    ['abc', true],
    ['a c', true],
    ['a😀c', true],
    ['a/c', false],
    ['ac', false],
    ['abbc', false],
  ]);
  expect('??', 'path', [
    ['ab', true],
    ['a', false],
    ['abc', false],
  ]);
});

test('a path `**` crosses segments, none included, but only after the literal text before it', () => {
  expect('src/**', 'path', [
    ['src/', true],
    ['src/a', true],
    ['src/a/b/c.ts', true],
    ['src/../../etc/passwd', true], // why subjects are normalized first (rule-subject.ts)
    ['src', false],
    ['srcx/a', false],
    ['SRC/a', false],
    ['lib/src/a', false],
  ]);
  expect('a**b', 'path', [
    ['ab', true],
    ['axb', true],
    ['ax/y/b', true],
    ['a', false],
    ['a/bc', false],
  ]);
  expect('***', 'path', [
    ['', true],
    ['a/b/c', true],
  ]);
  expect('**', 'path', [
    ['', true],
    ['/etc/passwd', true],
  ]);
});

test('a path `**/` covers no segment or any run of whole segments, ending at a slash', () => {
  expect('src/**/*.ts', 'path', [
    ['src/a.ts', true],
    ['src/a/b.ts', true],
    ['src/a/b/c.ts', true],
    ['src/a/b/c.js', false],
    ['src.ts', false],
    ['lib/a.ts', false],
  ]);
  expect('**/b', 'path', [
    ['b', true],
    ['x/b', true],
    ['x/y/b', true],
    ['/b', true],
    ['x/b/c', false],
  ]);
  expect('a**/b', 'path', [
    ['ab', true],
    ['ax/b', true],
    ['a/x/y/b', true],
  ]);
  expect('a***/b', 'path', [
    ['ab', true],
    ['a/x/b', true],
  ]);
  expect('src/**/', 'path', [
    ['src/', true],
    ['src/a/', true],
  ]);
});

test('a text `*` covers any characters: spaces, slashes, newlines, none at all', () => {
  expect('npm test*', 'text', [
    ['npm test', true],
    ['npm test -- --watch', true],
    ['npm test/../x', true],
    ['npm test\nrm -rf /', true], // why command lines are split into commands first (rule-subject.ts)
    ['npm tes', false],
    ['npm run test', false],
    [' npm test', false],
    ['NPM TEST', false],
  ]);
  expect('rm *', 'text', [
    ['rm -rf /', true],
    ['rm ', true],
    ['rm', false],
    ['rmdir x', false],
    ['echo rm x', false],
  ]);
  expect('a*', 'text', [
    ['a', true],
    ['a/b/c', true],
    ['', false],
  ]);
});

test('a text `**/` is no special form: a star and a slash, so it never covers a missing slash', () => {
  expect('a**/b', 'text', [
    ['a/b', true],
    ['ax/y/b', true],
    ['ab', false],
    ['axb', false],
  ]);
});

test('a text `?` covers exactly one character, a slash or a newline too', () => {
  expect('a?c', 'text', [
    ['abc', true],
    ['a/c', true],
    ['a\nc', true],
    ['a😀c', true],
    ['ac', false],
    ['abbc', false],
  ]);
});

test('stars may stand next to each other and to `?`: `*?*` needs at least one character', () => {
  expect('*?*', 'text', [
    ['', false],
    ['x', true],
    ['xyz', true],
  ]);
  expect('*?*', 'path', [
    ['', false],
    ['x', true],
    ['/', false],
    ['a/b', false],
  ]);
});

test('long subjects and many stars are answered, and answered right (no backtracking blow-up)', () => {
  const subject = `${'a/'.repeat(10_000)}b`;
  assert.equal(globMatches(`${'*/'.repeat(40)}**`, subject, 'path'), true);
  assert.equal(globMatches(`${'**/'.repeat(40)}c`, subject, 'path'), false);
  assert.equal(globMatches(`${'**/'.repeat(40)}b`, subject, 'path'), true);
  assert.equal(globMatches('*'.repeat(MAX_PATTERN_LENGTH), 'x'.repeat(5_000), 'text'), true);
  assert.equal(globMatches(`${'*a'.repeat(500)}`, `${'a'.repeat(499)}b`, 'text'), false);
});

test('a path `**/` past its start leads on only at a slash: `**/b` never covers `xb`, `src/**/x.ts` never `src/evilx.ts`', () => {
  expect('**/b', 'path', [
    ['xb', false],
    ['x/yb', false],
    ['x/b', true],
  ]);
  expect('src/**/x.ts', 'path', [
    ['src/evilx.ts', false],
    ['src/a/evilx.ts', false],
    ['src/x.ts', true],
    ['src/a/x.ts', true],
  ]);
  expect('a**/b', 'path', [
    ['axb', false],
    ['ax/b', true],
  ]);
  expect('a***/b', 'path', [['axb', false]]);
  expect('src/**/', 'path', [
    ['src/a', false],
    ['src/a/', true],
  ]);
});
