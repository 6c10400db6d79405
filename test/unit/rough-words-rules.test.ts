import { test } from 'node:test';
import assert from 'node:assert/strict';
import { splitRoughly } from '../../src/workflows/tools/rough-words';

/**
 * The rough split of a command line the tokenizer refuses (src/workflows/tools/rough-words.ts):
 * commands at sh's separators and words at blanks, both only outside quotes, with sh's quote
 * removal. Nothing is expanded; operators and redirections stay in the words.
 */

test('commands end at ;, a newline, &&, || and |, words at spaces and tabs', () => {
  assert.deepEqual(splitRoughly('a 1;b\t2\nc && d || e | f'), [
    ['a', '1'],
    ['b', '2'],
    ['c'],
    ['d'],
    ['e'],
    ['f'],
  ]);
  assert.deepEqual(splitRoughly(';; \n  a  \n\n'), [['a']]);
  assert.deepEqual(splitRoughly(''), []);
});

test('>| is a redirection, not a pipe: the word goes on', () => {
  assert.deepEqual(splitRoughly('echo a >|log | wc'), [['echo', 'a', '>|log'], ['wc']]);
  assert.deepEqual(splitRoughly('echo a >| log'), [['echo', 'a', '>|', 'log']]);
  assert.deepEqual(splitRoughly('echo ">"|wc'), [['echo', '>'], ['wc']]);
});

test('a quoted string is one word with its quotes removed, separators and blanks in it included', () => {
  assert.deepEqual(splitRoughly(`python -c "import os\nx = 1; print(x) | y && z"`), [
    ['python', '-c', 'import os\nx = 1; print(x) | y && z'],
  ]);
  assert.deepEqual(splitRoughly(`rm 'my file' "b"c'd'`), [['rm', 'my file', 'bcd']]);
  assert.deepEqual(splitRoughly(`echo '' ""`), [['echo', '', '']]);
});

test('inside single quotes a backslash is a character; inside double quotes it escapes only \\ " $ ` and a newline', () => {
  assert.deepEqual(splitRoughly(`echo 'a\\b' "c\\d" "e\\"f" "g\\$h" "i\\\\j"`), [
    ['echo', 'a\\b', 'c\\d', 'e"f', 'g$h', 'i\\j'],
  ]);
});

test('outside quotes a backslash makes the next character plain; before a newline it joins the lines', () => {
  assert.deepEqual(splitRoughly('rm a\\ b c\\;d'), [['rm', 'a b', 'c;d']]);
  assert.deepEqual(splitRoughly('rm -rf \\\nbuild'), [['rm', '-rf', 'build']]);
  assert.deepEqual(splitRoughly('echo \\'), [['echo', '']]);
});

test('a quote never closed runs to the end of the line', () => {
  assert.deepEqual(splitRoughly(`echo "a; b\nc`), [['echo', 'a; b\nc']]);
});

test('operators and redirections stay in the words, for the caller to read', () => {
  assert.deepEqual(splitRoughly('cmd 2>&1 >out <in &'), [['cmd', '2>&1', '>out', '<in', '&']]);
});
