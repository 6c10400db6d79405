import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QUOTED_CHARACTER, type ShellWord } from '../../src/workflows/tools/shell-words';
import { whyOutsideWorkspace } from '../../src/workflows/tools/workspace-path-rule';

// run_command's rule that a read-only command names nothing outside the workspace, word by word
// (tools-classifier.test.ts has whole commands): the exact reason for each way out, and the
// words that stay inside.

/** A word as typed without quotes: every character active. */
function bare(text: string): ShellWord {
  return { text, active: text };
}

/** A word with the characters at [start, end) quoted, so the shell does not act on them. */
function quoted(text: string, start = 0, end = text.length): ShellWord {
  return { text, active: text.slice(0, start) + QUOTED_CHARACTER.repeat(end - start) + text.slice(end) };
}

test('a word that expands a variable anywhere can name any path; a "$" that ends the word is literal', () => {
  assert.equal(whyOutsideWorkspace(bare('a$HOME')), '"a$HOME" expands a variable, which can name any path');
  assert.equal(
    whyOutsideWorkspace(bare('/proc/$$/x')),
    '"/proc/$$/x" expands a variable, which can name any path',
  );
  assert.equal(whyOutsideWorkspace(bare('price$')), undefined);
  assert.equal(whyOutsideWorkspace(quoted('$HOME')), undefined, "a quoted '$HOME' is literal text");
});

test('a "~" after "=" or ":" expands to a home directory (bash does in assignments); a quoted one does not', () => {
  for (const text of ['x=~/.netrc', 'PATH=bin:~/bin'])
    assert.equal(whyOutsideWorkspace(bare(text)), `"${text}" expands ~ (bash does after = and :)`);
  assert.equal(whyOutsideWorkspace(quoted('x=~/.netrc', 2, 3)), undefined);
  assert.equal(whyOutsideWorkspace(bare('a~b')), undefined);
});

test('a word starting with an active "~" names a home directory; a quoted "~" is a file name', () => {
  assert.equal(
    whyOutsideWorkspace(bare('~/.ssh/id_rsa')),
    'names ~/.ssh/id_rsa, a home directory outside the workspace',
  );
  assert.equal(whyOutsideWorkspace(bare('~root')), 'names ~root, a home directory outside the workspace');
  assert.equal(whyOutsideWorkspace(quoted('~/notes', 0, 1)), undefined);
});

test('an absolute path is outside, as a word, as the value of --option=, or glued to a short option', () => {
  assert.equal(whyOutsideWorkspace(bare('/etc/passwd')), 'names /etc/passwd outside the workspace');
  assert.equal(whyOutsideWorkspace(bare('--file=/etc/passwd')), 'names /etc/passwd outside the workspace');
  assert.equal(whyOutsideWorkspace(bare('=/etc/passwd')), 'names /etc/passwd outside the workspace');
  assert.equal(whyOutsideWorkspace(bare('-f/etc/passwd')), 'names /etc/passwd outside the workspace');
  assert.equal(whyOutsideWorkspace(bare('-xf~/x')), 'names ~/x, a home directory outside the workspace');
});

test('only a short option has a glued value: "--/etc" and "src-old/etc" name no absolute path', () => {
  assert.equal(whyOutsideWorkspace(bare('--/etc')), undefined);
  assert.equal(whyOutsideWorkspace(bare('src-old/etc')), undefined);
  assert.equal(whyOutsideWorkspace(bare('-')), undefined);
});

test('a path that climbs above the root is outside: "..", "./..", "a//../..", "-I../include"', () => {
  for (const text of ['..', './..', 'a/../..', 'a//../..', 'src/./../..'])
    assert.equal(whyOutsideWorkspace(bare(text)), `names ${text}, which climbs above the workspace`);
  assert.equal(
    whyOutsideWorkspace(bare('-I../include')),
    'names ../include, which climbs above the workspace',
  );
});

test('a path that comes back down stays inside: ".", "a/..", "a/../b", "./x"', () => {
  for (const text of ['.', 'a/..', 'a/../b', './x', 'src/a.ts', '...', '..x'])
    assert.equal(whyOutsideWorkspace(bare(text)), undefined, text);
});

test('an active glob segment that starts with "." or "[" may match "..", so it climbs; quoted, it is a name', () => {
  for (const text of ['.*', './.*', '[.][.]', 'a/../.?'])
    assert.equal(whyOutsideWorkspace(bare(text)), `names ${text}, which climbs above the workspace`, text);
  assert.equal(whyOutsideWorkspace(bare('a/.*')), undefined, 'a/.* matches a/.., the root itself');
  assert.equal(whyOutsideWorkspace(bare('*.txt')), undefined);
  assert.equal(whyOutsideWorkspace(bare('?*')), undefined, 'a glob not starting with "." never matches ".."');
  assert.equal(whyOutsideWorkspace(quoted('./.*', 2)), undefined, "'.*' quoted is a file named .*");
  assert.equal(whyOutsideWorkspace(bare('.x')), undefined, 'a dot file is not a glob');
});
