import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  canonicalJson,
  normalizedPath,
  ruleSubject,
  subjectText,
} from '../../src/workflows/approvals/rule-subject';

/**
 * The rules of what an approval rule is matched against (rule-subject.ts; issue 27: mutation
 * testing), read as an attacker would: run_command's command as its simple commands (one plain,
 * literal command, or a reason no allow rule can cover it), a `path` field relative to the
 * workspace with `.`, `..`, `//` and trailing slashes resolved and climbing kept, any other input
 * as JSON whose key order the model cannot choose; and the text a rule made from the call names.
 */

const run = (command: string) => ruleSubject('run_command', { command });
/** Why no allow rule can cover the line, when one cannot. */
const notCoverable = (command: string) => {
  const subject = run(command);
  return subject.kind === 'command' ? subject.notCoverable : 'not a command';
};

test('one plain command: its words joined by one space, blanks squeezed, quotes removed; the raw line kept', () => {
  assert.deepEqual(run(' npm  test\t\t--watch  '), {
    kind: 'command',
    commands: ['npm test --watch'],
    raw: 'npm test --watch',
  });
  assert.deepEqual(run("npm test 'a b'"), {
    kind: 'command',
    commands: ['npm test a b'],
    raw: "npm test 'a b'",
  });
  assert.deepEqual(run('echo "*" \'$HOME\''), {
    kind: 'command',
    commands: ['echo * $HOME'],
    raw: 'echo "*" \'$HOME\'',
  });
  assert.equal(subjectText(run(' npm  test ')), 'npm test');
  assert.equal(subjectText(run("npm test 'a b'")), 'npm test a b');
});

test('chained lines name every command and cannot be covered; the raw line keeps newlines, squeezing spaces and tabs only', () => {
  assert.deepEqual(run('a;  b'), {
    kind: 'command',
    commands: ['a', 'b'],
    notCoverable: 'it chains several commands',
    raw: 'a; b',
  });
  assert.deepEqual(run('npm test \n\t rm -rf .'), {
    kind: 'command',
    commands: ['npm test', 'rm -rf .'],
    notCoverable: 'it chains several commands',
    raw: 'npm test \n rm -rf .',
  });
  assert.equal(subjectText(run('a |  b')), 'a | b');
});

test('an empty line or a comment alone holds no command: it is not coverable either, and says it holds no command', () => {
  assert.deepEqual(run(''), {
    kind: 'command',
    commands: [],
    notCoverable: 'it holds no command',
    raw: '',
  });
  assert.deepEqual(run('# c'), {
    kind: 'command',
    commands: [],
    notCoverable: 'it holds no command',
    raw: '# c',
  });
  assert.equal(subjectText(run('  ')), '');
});

test('a line the splitter cannot see through holds no commands and says why; its raw text is what rules see', () => {
  const substituted = run('npm  test $(id)');
  assert.deepEqual(substituted, {
    kind: 'command',
    commands: [],
    notCoverable: 'command substitution $(…) runs another command',
    raw: 'npm test $(id)',
  });
  assert.equal(subjectText(substituted), 'npm test $(id)');
});

test('input redirected from a file is not coverable, and names the file', () => {
  assert.deepEqual(run('cat  < /etc/shadow'), {
    kind: 'command',
    commands: ['cat /etc/shadow'],
    notCoverable: 'it redirects input from /etc/shadow',
    raw: 'cat < /etc/shadow',
  });
  assert.equal(subjectText(run('cat < /etc/shadow')), 'cat < /etc/shadow');
});

test('a word the shell expands is not coverable: $, *, ?, [, a leading ~, and ~ after = or :', () => {
  for (const [line, word] of [
    ['echo $HOME', '$HOME'],
    ['echo "$X"', '$X'],
    ['ls *.ts', '*.ts'],
    ['ls a?', 'a?'],
    ['ls [ab]', '[ab]'],
    ['cd ~/x', '~/x'],
    ['a=~/x', 'a=~/x'],
    ['PATH=a:~/b', 'PATH=a:~/b'],
  ] as const) {
    const subject = run(line);
    assert.deepEqual(
      subject,
      {
        kind: 'command',
        commands: [line.replaceAll('"', '')],
        notCoverable: `"${word}" is expanded by the shell before it runs`,
        raw: line,
      },
      line,
    );
    assert.equal(subjectText(subject), line);
  }
  assert.equal(notCoverable('echo ls x'), undefined);
  assert.deepEqual(run('env a=b c:d'), { kind: 'command', commands: ['env a=b c:d'], raw: 'env a=b c:d' });
});

test('quoted globs and a ~ inside or at the end of a word are literal: coverable', () => {
  for (const line of [
    "echo '$HOME'",
    'echo "*"',
    'ls \'a?\' "[ab]"',
    'echo a~b',
    'echo x~',
    "echo '~'",
    'a-~b',
  ]) {
    assert.equal(notCoverable(line), undefined, line);
  }
});

test('the first of several expanding words is named', () => {
  assert.equal(notCoverable('ls *.ts $HOME'), '"*.ts" is expanded by the shell before it runs');
});

test('only run_command with a string command is a command; a path makes a path; anything else is its input', () => {
  assert.deepEqual(ruleSubject('run_command', { command: 'ls', path: 'x' }), {
    kind: 'command',
    commands: ['ls'],
    raw: 'ls',
  });
  assert.deepEqual(ruleSubject('shell', { command: 'ls' }), { kind: 'input', text: '{"command":"ls"}' });
  assert.deepEqual(ruleSubject('shell', { command: 'ls', path: 'src/' }), { kind: 'path', path: 'src' });
  assert.deepEqual(ruleSubject('run_command', { command: ['rm', '-rf'] }), {
    kind: 'input',
    text: '{"command":["rm","-rf"]}',
  });
  assert.deepEqual(ruleSubject('run_command', { path: './a' }), { kind: 'path', path: 'a' });
  assert.deepEqual(ruleSubject('write_file', { path: '/ws/src/a.ts', content: 'x', extra: 1 }, '/ws'), {
    kind: 'path',
    path: 'src/a.ts',
  });
  assert.deepEqual(ruleSubject('write_file', { path: 5 }), { kind: 'input', text: '{"path":5}' });
  assert.deepEqual(ruleSubject('x', null), { kind: 'input', text: 'null' });
  assert.deepEqual(ruleSubject('x', undefined), { kind: 'input', text: 'null' });
  assert.deepEqual(ruleSubject('x', 'path'), { kind: 'input', text: '"path"' });
  assert.deepEqual(ruleSubject('x', [{ path: 'a' }]), { kind: 'input', text: '[{"path":"a"}]' });
  assert.deepEqual(ruleSubject('run_command', [{ command: 'ls' }]), {
    kind: 'input',
    text: '[{"command":"ls"}]',
  });
});

test('the text of a path or input subject is the path or the input', () => {
  assert.equal(subjectText({ kind: 'path', path: 'src/a.ts' }), 'src/a.ts');
  assert.equal(subjectText({ kind: 'input', text: '{"a":1}' }), '{"a":1}');
  assert.equal(subjectText({ kind: 'command', commands: [], raw: 'r' }), 'r');
  assert.equal(subjectText({ kind: 'command', commands: ['a', 'b'], raw: 'r' }), 'r');
  assert.equal(subjectText({ kind: 'command', commands: ['a'], raw: 'r' }), 'a');
  assert.equal(subjectText({ kind: 'command', commands: ['a'], notCoverable: 'why', raw: 'r' }), 'r');
});

test('canonical JSON: keys sorted at every depth, arrays kept in order, no blanks; the model cannot reorder its way past a pattern', () => {
  assert.equal(
    canonicalJson({ customer: 'acme', amount: 5, nested: { z: [2, 1], a: null } }),
    '{"amount":5,"customer":"acme","nested":{"a":null,"z":[2,1]}}',
  );
  assert.equal(canonicalJson({ b: 1, a: 2 }), canonicalJson({ a: 2, b: 1 }));
  assert.equal(canonicalJson([{ b: 1, a: 'x\n"y' }]), '[{"a":"x\\n\\"y","b":1}]');
  assert.equal(canonicalJson({ 'a"b': 1 }), '{"a\\"b":1}');
  assert.equal(canonicalJson({}), '{}');
  assert.equal(canonicalJson([]), '[]');
  assert.equal(canonicalJson(undefined), 'null');
  assert.equal(
    canonicalJson(() => 1),
    'null',
  );
  assert.equal(canonicalJson(true), 'true');
  assert.equal(canonicalJson('s'), '"s"');
});

test('paths: ., .., empty segments, a leading ./ and trailing slashes are resolved lexically', () => {
  for (const [path, expected] of [
    ['./src//a.ts', 'src/a.ts'],
    ['src/./a.ts/', 'src/a.ts'],
    ['src///', 'src'],
    ['src/x/../a.ts', 'src/a.ts'],
    // Blanks are part of a name: the tools do not trim, so neither do rules.
    ['  src/a.ts\n', '  src/a.ts\n'],
    ['', '.'],
    ['.', '.'],
    ['./', '.'],
    ['src/..', '.'],
  ] as const) {
    assert.equal(normalizedPath(path), expected, path);
  }
});

test('paths that climb out of the workspace keep every leading ..; absolute paths stay absolute, never climbing above /', () => {
  for (const [path, expected] of [
    ['..', '..'],
    ['../x', '../x'],
    ['src/../../etc/passwd', '../etc/passwd'],
    ['../../x', '../../x'],
    ['a/../../../x', '../../x'],
    ['/etc/../etc/passwd', '/etc/passwd'],
    ['/../../etc', '/etc'],
    ['/', '/'],
    ['//etc//passwd/', '/etc/passwd'],
  ] as const) {
    assert.equal(normalizedPath(path), expected, path);
  }
});

test('a path in the workspace is made relative to it, with or without a trailing slash on the workspace', () => {
  for (const workspace of ['/ws', '/ws/']) {
    for (const [path, expected] of [
      ['/ws/src/a.ts', 'src/a.ts'],
      ['/ws', '.'],
      ['/ws/', '.'],
      ['/ws/../etc/passwd', '/etc/passwd'],
      // Resolved before the workspace is taken off: these are the workspace's own src/secrets/k.
      ['//ws/src/secrets/k', 'src/secrets/k'],
      ['/ws/../ws/src/secrets/k', 'src/secrets/k'],
      ['/ws/./src//secrets/k', 'src/secrets/k'],
      ['/wsx/a', '/wsx/a'],
      ['/w', '/w'],
      ['/other/ws/a', '/other/ws/a'],
      ['src/a.ts', 'src/a.ts'],
      [' /ws/src ', ' /ws/src '],
    ] as const) {
      assert.equal(normalizedPath(path, workspace), expected, `${workspace} ${path}`);
    }
  }
  assert.equal(normalizedPath('/ws/a', ''), '/ws/a', 'an empty workspace is none');
  assert.equal(normalizedPath('/ws/a'), '/ws/a');
});
