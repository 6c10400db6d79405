import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitSimpleCommands } from '../../src/workflows/tools/shell-words';

/**
 * The sh tokenizer's rules at the edges the first mutation run found untested (issue 27), beside
 * shell-words-rules.test.ts: what ends a pipe, where a subshell starts, a comment after a line
 * continuation, refusals met at a separator, and the words around a redirection.
 */

function texts(command: string): string[][] {
  const result = splitSimpleCommands(command);
  assert.ok(result.ok, `${JSON.stringify(command)} was refused: ${result.ok ? '' : result.reason}`);
  return result.commands.map((words) => words.map((word) => word.text));
}

function refusal(command: string): string {
  const result = splitSimpleCommands(command);
  assert.equal(result.ok, false, `${JSON.stringify(command)} was split`);
  return result.ok ? '' : result.reason;
}

test('a pipe takes only its own | or ||: the next word starts right after it', () => {
  assert.deepEqual(texts('a|b'), [['a'], ['b']]);
  assert.deepEqual(texts('a||b'), [['a'], ['b']]);
});

test('an opening parenthesis is refused on its own, without a closing one', () => {
  assert.equal(refusal('echo (b'), 'subshells are not classified');
});

test('braces expand only between an active { and a later }: a comma or .. outside them is plain text', () => {
  assert.deepEqual(texts('cat a,b} x,{a} ..{b}'), [['cat', 'a,b}', 'x,{a}', '..{b}']]);
});

test('a comment runs to the end of a command that starts with a line continuation', () => {
  assert.deepEqual(texts('\\\nls # x'), [['ls']]);
});

test('a word refused at a separator stays refused: the commands after it do not hide it', () => {
  assert.equal(refusal('cat {a,b}; ls'), '{a,b} is a brace expansion in bash (not in dash)');
  assert.equal(refusal('ls >x; ls'), 'output redirection (>) can write files');
  assert.equal(refusal('ls >x && ls'), 'output redirection (>) can write files');
});

test('a redirection without its target, before a separator, is refused as such', () => {
  assert.equal(refusal('> ;'), 'a redirection without a target');
  assert.equal(refusal('ls; > ; ls'), 'a redirection without a target');
});

test('the digits after >& are its target, even when another redirection follows at once', () => {
  assert.deepEqual(texts('a >&1>/dev/null'), [['a']]);
  assert.deepEqual(texts('a >&12'), [['a']]);
});

test('only a whole word of digits or {name} before a redirection is read as a descriptor', () => {
  assert.deepEqual(texts('cat 12a>/dev/null'), [['cat', '12a']]);
  assert.deepEqual(texts('cat {fd}x>/dev/null'), [['cat', '{fd}x']]);
  assert.equal(refusal('a >&x1'), 'x1 after >& or <& is not a file descriptor (bash opens it as a file)');
  assert.equal(refusal('a >&1-'), '1- after >& or <& is not a file descriptor (bash opens it as a file)');
});
