import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QUOTED_CHARACTER, splitSimpleCommands, type ShellWord } from '../../src/workflows/tools/shell-words';

/**
 * The sh tokenizer's rules, one by one (issue 27: mutation testing). tools-classifier.test.ts
 * judges whole commands; a tokenizer that splits a word wrongly can still give the same verdict
 * there, so these state what each construct becomes: the exact words, what stays active for the
 * shell, and the exact reason for each refusal.
 */

function split(command: string): ShellWord[][] {
  const result = splitSimpleCommands(command);
  assert.ok(result.ok, `${JSON.stringify(command)} was refused: ${result.ok ? '' : result.reason}`);
  return result.commands;
}

const texts = (command: string): string[][] => split(command).map((words) => words.map((word) => word.text));

function refusal(command: string): string {
  const result = splitSimpleCommands(command);
  assert.equal(result.ok, false, `${JSON.stringify(command)} was split`);
  return result.ok ? '' : result.reason;
}

const Q = QUOTED_CHARACTER;

test('every range of unreadable code points is refused at both ends; tab, newline, space and ~ are not', () => {
  const ranges: ReadonlyArray<readonly [number, number]> = [
    [0x00, 0x08],
    [0x0b, 0x1f],
    [0x7f, 0xa0],
    [0xad, 0xad],
    [0x34f, 0x34f],
    [0x61c, 0x61c],
    [0x115f, 0x1160],
    [0x1680, 0x1680],
    [0x17b4, 0x17b5],
    [0x180e, 0x180e],
    [0x2000, 0x200f],
    [0x2028, 0x202f],
    [0x205f, 0x206f],
    [0x3000, 0x3000],
    [0x3164, 0x3164],
    [0xfe00, 0xfe0f],
    [0xfeff, 0xfeff],
    [0xffa0, 0xffa0],
    [0xfff9, 0xfffb],
    [0xe0000, 0xe007f],
  ];
  for (const [first, last] of ranges)
    for (const code of [first, last])
      assert.equal(
        refusal(`cat a${String.fromCodePoint(code)}b`),
        'the command holds a control or invisible character',
        code.toString(16),
      );
  // Just outside the ranges: readable characters that sh and a reader see alike.
  for (const code of [0x09, 0x0a, 0x20, 0x7e, 0xa1, 0xac, 0xae, 0x2010, 0x2027, 0x2030, 0xfffc])
    assert.ok(splitSimpleCommands(`cat a${String.fromCodePoint(code)}b`).ok, code.toString(16));
});

test('characters that look like quotes or operators are refused; their plain neighbours are not', () => {
  for (const char of [
    '\u00b4',
    '\u02bc',
    '\u2018',
    '\u201f',
    '\u2032',
    '\u2037',
    '\u2044',
    '\u2215',
    '\uff02',
    '\uff04',
    '\uff06',
    '\uff09',
    '\uff0f',
    '\uff1b',
    '\uff1c',
    '\uff1e',
    '\uff40',
    '\uff5c',
  ])
    assert.equal(refusal(`cat a${char}b`), 'the command holds a character that looks like sh syntax', char);
  for (const char of ['\u00b5', '\u2017', '\u2038', '\uff05', '\uff10', '\uff1d'])
    assert.ok(splitSimpleCommands(`cat a${char}b`).ok, char);
});

test('; newline | || && separate simple commands; blanks and tabs separate words', () => {
  assert.deepEqual(texts('a b;c\td\ne | f || g && h'), [['a', 'b'], ['c', 'd'], ['e'], ['f'], ['g'], ['h']]);
  assert.deepEqual(texts(''), []);
  assert.deepEqual(texts('  \n\n  '), []);
  // After | && || the next line continues the pipeline.
  assert.deepEqual(texts('a |\n\n b'), [['a'], ['b']]);
  assert.deepEqual(texts('a;'), [['a']]);
});

test('quotes are removed and what they quote is no longer active; $ stays active inside double quotes', () => {
  assert.deepEqual(split(`a'b c'd`)[0], [{ text: 'ab cd', active: `a${Q}${Q}${Q}d` }]);
  assert.deepEqual(split('"$HOME x"')[0], [{ text: '$HOME x', active: `$${Q}${Q}${Q}${Q}${Q}${Q}` }]);
  assert.deepEqual(split('\\*x')[0], [{ text: '*x', active: `${Q}x` }]);
  // An empty quoted word is a word; nothing at all is none.
  assert.deepEqual(texts(`a '' ""`), [['a', '', '']]);
  // Inside double quotes a backslash escapes only $ ` " and itself.
  assert.deepEqual(split('"\\$\\`\\"\\\\\\n"')[0], [
    { text: '$`"\\\\n', active: `${Q}${Q}${Q}${Q}${Q}${Q}` },
  ]);
  // Single quotes keep a backslash-newline; outside quotes it joins the lines.
  assert.deepEqual(texts("'a\\\nb'"), [['a\\\nb']]);
  assert.deepEqual(texts('ca\\\nt x'), [['cat', 'x']]);
  assert.deepEqual(texts('"a\\\nb"'), [['ab']]);
});

test('a # that starts a word starts a comment up to the newline; inside a word it is a character', () => {
  assert.deepEqual(texts('a # b ; c\nd'), [['a'], ['d']]);
  assert.deepEqual(texts('a#b'), [['a#b']]);
  assert.deepEqual(split('a#b')[0], [{ text: 'a#b', active: 'a#b' }]);
  assert.deepEqual(texts('# only a comment'), []);
});

test('each construct that runs or hides something is refused with its own reason', () => {
  const cases: ReadonlyArray<readonly [string, string]> = [
    ['echo `id`', 'command substitution (backticks) runs another command'],
    ['echo "`id`"', 'command substitution (backticks) runs another command'],
    ['echo $(id)', 'command substitution $(…) runs another command'],
    ['echo "$(id)"', 'command substitution $(…) runs another command'],
    ['echo ${HOME}', '${…} expansions are not classified'],
    ['echo "${HOME}"', '${…} expansions are not classified'],
    ['echo $[1+1]', '$[…] is arithmetic in bash and literal in dash'],
    ['echo "$[1+1]"', '$[…] is arithmetic in bash and literal in dash'],
    ["echo $'x'", "$'…' is ANSI-C quoting in bash and a $ before a quoted string in dash"],
    ['echo $"x"', '$"…" is a translated string in bash and a $ before a quoted string in dash'],
    ['case x in x) ;; esac', 'subshells are not classified'],
    ['a ;; b', ';; is case syntax'],
    ['a ;& b', ';& is case syntax'],
    ['a |& b', '|& is not plain sh'],
    ['a &> b', '&> runs a background job in dash and redirects output in bash'],
    ['a & b', '& runs a background job'],
    ['a &', '& runs a background job'],
    ['(a)', 'subshells are not classified'],
    ['a)', 'subshells are not classified'],
    ['cat <<EOF', 'here-documents and here-strings are not classified'],
    ['cat <<<x', 'here-documents and here-strings are not classified'],
    ['cat <>x', '<> opens a file for writing'],
    ['cat <(id)', 'process substitution runs another command'],
    ['a \\', 'the command ends with a backslash'],
    ["a 'b", 'unbalanced quotes'],
    ['a "b', 'unbalanced quotes'],
    ['a |', 'the command ends with an operator'],
    ['a &&', 'the command ends with an operator'],
    ['a ||\n', 'the command ends with an operator'],
    ['| a', 'an operator with no command before it'],
    ['a; ; b', 'an operator with no command before it'],
    ['a && && b', 'an operator with no command before it'],
    ['a >', 'a redirection without a target'],
    ['a > > b', 'a redirection without a target'],
    ['a >\nb', 'a redirection without a target'],
    ['a > b', 'output redirection (>) can write files'],
    ['a >> b', 'output redirection (>) can write files'],
    ['a >| b', 'output redirection (>) can write files'],
    ['a > /dev/nullx', 'output redirection (>) can write files'],
    ["a > '/dev/null'x", 'output redirection (>) can write files'],
    ['a >&x', 'x after >& or <& is not a file descriptor (bash opens it as a file)'],
    ['a >&"1"', '1 after >& or <& is not a file descriptor (bash opens it as a file)'],
    ['a <&1x', '1x after >& or <& is not a file descriptor (bash opens it as a file)'],
    ['a 12>/dev/null', '12 before a redirection means different things in dash and bash'],
    ['a {fd}>/dev/null', '{fd} before a redirection means different things in dash and bash'],
    ['a {_f9}</dev/null', '{_f9} before a redirection means different things in dash and bash'],
    ['cat {a,b}', '{a,b} is a brace expansion in bash (not in dash)'],
    ['cat x{1..3}y', 'x{1..3}y is a brace expansion in bash (not in dash)'],
  ];
  for (const [command, reason] of cases) assert.equal(refusal(command), reason, command);
});

test('a $ that starts no expansion the tokenizer refuses stays an active character', () => {
  assert.deepEqual(split('echo $HOME $')[0], [
    { text: 'echo', active: 'echo' },
    { text: '$HOME', active: '$HOME' },
    { text: '$', active: '$' },
  ]);
  assert.deepEqual(split('"a$"')[0], [{ text: 'a$', active: `${Q}$` }]);
});

test('braces expand only around a comma or .. that the shell sees, between an active { and }', () => {
  assert.deepEqual(texts("cat '{a,b}' {a} {} x{y,"), [['cat', '{a,b}', '{a}', '{}', 'x{y,']]);
  assert.deepEqual(texts('cat }a,b{ \\{a,b}'), [['cat', '}a,b{', '{a,b}']]);
  assert.deepEqual(texts('git show HEAD@{1} a{.b}'), [['git', 'show', 'HEAD@{1}', 'a{.b}']]);
});

test('output may only go to /dev/null or a descriptor; input redirections become marked words', () => {
  assert.deepEqual(texts('a >/dev/null 2>&1 2>&- >&2 b'), [['a', 'b']]);
  assert.deepEqual(texts('a 2> /dev/null'), [['a']]);
  assert.deepEqual(split('sort < in.txt -r')[0], [
    { text: 'sort', active: 'sort' },
    { text: 'in.txt', active: 'in.txt', redirectedInput: true },
    { text: '-r', active: '-r' },
  ]);
  // One digit before the operator is its descriptor, not a word; a quoted digit is a word.
  assert.deepEqual(split('cat 0<in')[0], [
    { text: 'cat', active: 'cat' },
    { text: 'in', active: 'in', redirectedInput: true },
  ]);
  assert.deepEqual(texts("cat '2'</dev/null"), [['cat', '2', '/dev/null']]);
  assert.deepEqual(texts('cat a2>/dev/null'), [['cat', 'a2']]);
  // A redirection alone is a command with nothing to run.
  assert.deepEqual(texts('>/dev/null; a'), [['a']]);
});
