import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyShellCommand } from '../../src/workflows/tools/shell-command-classifier';
import { createToolActivities } from '../../src/activities/tools/tool-activities';
import { createToolRegistry } from '../../src/worker';
import { makeWorkspace } from './tools-test-helpers';

const readOnly = [
  'ls -la',
  'pwd',
  'cat src/app.ts | head -20',
  'grep -rn "TODO" src | sort | uniq -c',
  "grep 'a > b' notes.txt",
  "grep '$(' script.sh",
  'rg --files | wc -l',
  'find . -name "*.ts" -type f',
  'ls 2>/dev/null',
  'ls missing 2>&1 | head',
  'ls && pwd',
  'ls nothing || echo none',
  'cd src; ls',
  'sort < names.txt',
  'git status --short',
  'git log --oneline -5',
  'git --no-pager diff HEAD~1',
  'git branch -a',
  'tree -L 2',
  'du -sh .',
  'stat package.json',
  'which node',
  'ls -la src',
  'grep -rn foo .',
  'cat README.md',
  'git status',
  "find . -name '*.ts'",
  "grep -rn '$HOME' src",
  'ls src/../test',
  'cat *.md',
  "find . -name '.*'",
  'grep -rn foo . 2>/dev/null',
];

const irreversible = [
  'rm -rf build',
  'cat a > b',
  'echo hi >> log.txt',
  'ls > /dev/nullx',
  'ls && rm -rf x',
  'ls; rm x',
  'false || rm x',
  'ls | xargs rm',
  'echo $(rm x)',
  'echo "$(rm x)"',
  'echo `id`',
  'sudo ls',
  'frobnicate --all',
  './ls',
  'FOO=1 ls',
  'ls &',
  '(ls)',
  'cat "unterminated',
  'find . -name x -delete',
  'find . -exec rm {} \\;',
  'find . -fprint out.txt',
  'git push',
  'git commit -m x',
  'git branch -d feature',
  'git branch new-branch',
  'git -c core.pager=sh log',
  'git diff --output=patch.txt',
  'sort -o out.txt in.txt',
  'sort -uo out.txt in.txt',
  'uniq in.txt out.txt',
  'rg --pre cat pattern',
  'tree -o listing.txt',
  'cat <(rm x)',
  'constructor',
  'git constructor',
  'cat << EOF',
];

/** The examples: read-only commands that read outside the workspace (secrets, other users). */
const outsideWorkspace: ReadonlyArray<readonly [string, RegExp]> = [
  ['cat /proc/$PPID/environ', /variable/],
  ['cat /proc/1/environ', /names \/proc\/1\/environ outside the workspace/],
  ['cat /proc/*/environ', /outside the workspace/],
  ['cat /etc/passwd', /\/etc\/passwd/],
  ['cat ~/.ssh/id_rsa', /home directory/],
  ['cat $HOME/.netrc', /variable/],
  ['cat "$HOME/.netrc"', /variable/],
  ['cat ${HOME}/.netrc', /expansions are not classified/],
  ['cat /proc/$$/environ', /variable|outside/],
  ['cat ../../../etc/hostname', /climbs above the workspace/],
  ['cat src/../../secret', /climbs/],
  ['grep -r KEY /', /names \/ outside/],
  ['find / -name "*.pem"', /names \/ outside/],
  ['ls /proc', /\/proc/],
  ['ls ..', /climbs/],
  ['ls .*', /climbs/],
  ['grep -r KEY .*', /climbs/],
  ['grep --file=/etc/passwd .', /\/etc\/passwd/],
  ['grep -f/etc/shadow .', /\/etc\/shadow/],
  ['sort < /etc/passwd', /\/etc\/passwd/],
  ['cat README.md 2>/dev/null; cat /etc/hostname', /\/etc\/hostname/],
  ['cd', /cd without a directory/],
  ['cd -; cat .netrc', /cd without a directory/],
  ['cd /; cat etc/passwd', /outside/],
];

/**
 * Commands that must not be read-only, each with the hole it exercises (from the adversarial
 * audit). sh here is /bin/sh, which may be dash or bash: where they differ, both readings count.
 */
const notReadOnly: ReadonlyArray<readonly [hole: string, command: string]> = [
  // A `#` at the start of a word comments out the rest of the line, quotes included.
  ['comment', "echo hi #'\nrm victim.txt\n#'"],
  ['comment', 'cat README.md #"\nrm -rf src\n#"'],
  ['comment', "ls;#'\nrm x\n#'"],
  ['comment', "ls\t#'\nrm x #'"],
  ['comment', "ls 2>&1 #'\nrm x\n#'"],
  ['comment', "ls && #'\nrm x #'"],
  ['comment', 'ls # a comment ends at the newline, even after a backslash \\\nrm x'],
  ['comment', "ls \\\n#'\nrm x #'"],
  // Backslash-newline is removed outside single quotes.
  ['line continuation', 'cat \\\n/proc/$\\\nPPID/environ'],
  ['line continuation', 'cat \\\n/etc/passwd'],
  ['line continuation', 'cat "\\\n/etc/passwd"'],
  ['line continuation', 'cat .\\\n./secret'],
  ['line continuation', 'cat /proc/$\\\n$/environ'],
  ['line continuation', 'echo $\\\n(rm x)'],
  ['line continuation', 'r\\\nm -rf src'],
  ['line continuation', 'ls &\\\n& rm x'],
  ['line continuation', 'sort -\\\no out.txt in.txt'],
  ['line continuation', 'ls >\\\n> log.txt'],
  // $'…' is ANSI-C quoting in bash and `$` + a quoted string in dash.
  ['dollar quote', "cat $'\\x2fetc\\x2fpasswd'"],
  ['dollar quote', "ls $'\\x2e\\x2e'"],
  ['dollar quote', "sort $'-o' out.txt in.txt"],
  ['dollar quote', 'cat $"README.md"'],
  ['dollar quote', "cat README$'\\n'.md"],
  // Brace expansion (bash) makes words the classifier did not see.
  ['brace expansion', 'cat {/etc/shadow,x}'],
  ['brace expansion', 'cat {..,x}/secret'],
  ['brace expansion', 'sort {-o,out.txt} in.txt'],
  ['brace expansion', 'file {-C,x}'],
  ['brace expansion', 'cat x{1..3}'],
  ['brace expansion', 'ls {a,b}'],
  ['brace expansion', "cat {'/etc/shadow',x}"],
  ['brace expansion', 'echo a{b,c}d'],
  // Separators, operators and redirections.
  ['operator', 'ls;; rm x'],
  ['operator', 'ls & rm x'],
  ['operator', 'ls&'],
  ['operator', 'ls |& cat'],
  ['operator', 'ls ;& rm x'],
  ['operator', '; ls'],
  ['operator', 'ls | | cat'],
  ['operator', 'ls &&'],
  ['operator', 'ls |'],
  ['here-string', 'cat <<< hello'],
  ['here-document', 'cat <<EOF\nhello\nEOF'],
  ['here-document', 'cat <<-EOF\nhello\nEOF'],
  ['redirection', 'ls >| out.txt'],
  ['redirection', 'ls &> out.txt'],
  ['redirection', 'ls &>/dev/null'],
  ['redirection', 'ls &>> out.txt'],
  ['redirection', 'ls >&out.txt'],
  ['redirection', 'ls >&1x'],
  ['redirection', 'ls >&-x'],
  ['redirection', 'ls 2>&1#x'],
  ['redirection', 'ls >&/dev/null'],
  ['redirection', 'cat <&README.md'],
  ['redirection', 'cat <>README.md'],
  ['redirection', 'cat 3<>README.md'],
  ['redirection', 'ls 2>out.txt'],
  ['redirection', 'ls 1>>out.txt'],
  ['redirection', 'ls >"out.txt"'],
  ['redirection', 'ls >/dev/nul?'],
  ['redirection', 'ls >/dev/null/../../x'],
  ['redirection', 'ls > /dev/null2'],
  ['redirection', 'ls >'],
  ['redirection', 'ls > ;rm x'],
  ['redirection', 'ls >#comment'],
  ['redirection', 'ls 2>&1>out.txt'],
  ['fd number', 'cat 10>/dev/null README.md'],
  ['fd number', 'uniq in.txt 10>/dev/null'],
  ['fd number', 'ls {fd}>/dev/null'],
  ['process substitution', 'cat <(rm x)'],
  ['process substitution', 'ls >(rm x)'],
  // Characters sh takes literally but a reader would not.
  ['control character', 'cat README.md\rrm x'],
  ['control character', 'cat README.md\u0000'],
  ['control character', 'ls \u001b[2K'],
  ['control character', 'cat README\u202e.md'],
  ['non-ASCII whitespace', 'cat\u00a0/etc/passwd'],
  ['non-ASCII whitespace', 'ls\u2003-la'],
  ['non-ASCII whitespace', 'cat README.md\u200b'],
  ['lookalike quote', 'cat \u2018/etc/passwd\u2019'],
  ['lookalike quote', 'echo \u201chi\u201d'],
  ['lookalike operator', 'ls \uff1b rm x'],
  // Backslashes at odd places still name the same program.
  ['backslash', 'r\\m -rf src'],
  ['backslash', '\\rm -rf src'],
  ['backslash', "'r'm -rf src"],
  ['backslash', 'cat \\/etc/passwd'],
  ['backslash', 'cat README.md \\'],
  // Expansions the classifier does not model.
  ['expansion', 'cat ${HOME}/.netrc'],
  ['expansion', 'cat ${x:-/etc/passwd}'],
  ['expansion', 'echo $[1+1]'],
  ['expansion', 'cat x$1'],
  ['expansion', 'cat README.md $((1+1))'],
  ['tilde', 'cat ~root/.profile'],
  ['tilde', 'cat x=~/.netrc'],
  ['tilde', 'ls x=a:~/y'],
  ['tilde', 'cat ~-/x'],
];

/** Commands that are read-only today, correctly, and must stay so: the hint stays useful. */
const staysReadOnly: readonly string[] = [
  'ls -la src | head -50',
  'git status',
  'grep -rn foo src',
  'cat README.md',
  "find . -name '*.ts'",
  'wc -l src/*.ts',
  'git log --oneline -5',
  'git diff HEAD~1 -- src',
  'ls -lah --color=never src',
  'ls -1 --group-directories-first',
  'head -n 20 README.md',
  'head -20 README.md',
  'tail -n +5 README.md',
  'tail -f app.log',
  'cat -n README.md',
  'cat -',
  'cat -- -weird-name',
  'grep -- -v README.md',
  'grep -rf patterns.txt src',
  'grep -rn -e foo -e bar src',
  "grep -rn --include='*.ts' foo src",
  'grep -C3 foo README.md',
  'grep -5 foo README.md',
  'grep -c a#b README.md',
  'grep -n TODO *',
  'cat *.md',
  'ls src/*',
  'cat README.md # show it',
  'ls # list\npwd',
  'cat \\\nREADME.md',
  "echo 'a\\\nb'",
  "echo a#'\nrm x'",
  "echo '{a,b}'",
  'sort -u names.txt',
  'sort -k2 -t, -n data.csv',
  'sort -rn counts.txt | head',
  'uniq -c names.txt',
  'sort names.txt | uniq -c',
  'cut -d: -f1 data.txt',
  'nl -ba README.md',
  'du -sh src',
  'du -h --max-depth=1 .',
  'df -h .',
  'stat -c %s package.json',
  'file -b README.md',
  'file --mime-type src/index.ts',
  'tree -L 2 -I node_modules',
  'tree -a -L 2 src',
  'rg -n foo src',
  "rg -i --glob '*.ts' foo",
  'rg -A2 foo src',
  "find . -type f -name '*.md' -not -path './node_modules/*'",
  'find src -maxdepth 2 -newer package.json -print0',
  "find . -iname '*x*' -not -path '*/node_modules/*' -not -path '*/.git/*'",
  'find . -name x -o -name y',
  'git log --oneline --graph --decorate -n 20',
  'git show --stat HEAD',
  'git diff --cached --name-only',
  'git diff --stat HEAD~3..HEAD',
  'git log -p -1 -- src/index.ts',
  'git show HEAD@{1}',
  'git status -sb',
  'git status --porcelain=v1 -uno',
  'git branch -vv',
  'git rev-parse --abbrev-ref HEAD',
  'git ls-files -m',
  'git blame -L 10,20 src/index.ts',
  'git --no-pager log -3',
  "git log --format='%h %s' -5",
  "git log --author=alice --since='2 weeks ago'",
  'diff -u a.txt b.txt',
  'diff -rq src test',
  'cmp a.bin b.bin',
  'sha256sum package.json',
  'md5sum -b package.json',
  'basename src/a.ts .ts',
  'dirname src/a.ts',
  'realpath src',
  'readlink -f link',
  'which node',
  'pwd',
  'cd src && ls',
  'echo hi',
  'true',
  'ls >/dev/null 2>&1',
  'ls >| /dev/null',
  'cat <README.md',
  'ls 2>/dev/null',
  'ls -la \\\n  src',
];

/** The reason names the rule that refused: each rule has a case no other rule catches first. */
const refusedBecause: ReadonlyArray<readonly [string, RegExp]> = [
  ["echo hi #'\nrm victim.txt\n#'", /"rm" is not a known read-only command/],
  ['cat \\\n/proc/$\\\nPPID/environ', /"\/proc\/\$PPID\/environ" expands a variable/],
  ["cat $'\\x2fetc\\x2fpasswd'", /ANSI-C quoting/],
  ['cat {/etc/shadow,x}', /brace expansion/],
  ['ls >&1x', /not a file descriptor/],
  ['cat 10>/dev/null README.md', /means different things in dash and bash/],
  ['cat README.md\rrm x', /control or invisible character/],
  ['cat \u2018x\u2019', /looks like sh syntax/],
  ['git -c core.pager=sh log', /git option -c before the subcommand/],
  ['cat x=~/.netrc', /expands ~/],
  ['ls | | cat', /no command before it/],
  ['cat ${HOME}/.netrc', /\$\{…\} expansions are not classified/],
];

for (const [command, reason] of refusedBecause) {
  test(`refused for its own reason: ${JSON.stringify(command)}`, () => {
    const result = classifyShellCommand(command);
    assert.equal(result.reversibility, 'irreversible');
    assert.match(result.reason, reason);
  });
}

for (const [hole, command] of notReadOnly) {
  test(`not read-only (${hole}): ${JSON.stringify(command)}`, () => {
    const result = classifyShellCommand(command);
    assert.equal(result.reversibility, 'irreversible', result.reason);
    assert.ok(result.reason.length > 0);
  });
}

for (const command of staysReadOnly) {
  test(`stays read-only: ${JSON.stringify(command)}`, () => {
    const result = classifyShellCommand(command);
    assert.equal(result.reversibility, 'read-only', result.reason);
  });
}

for (const command of readOnly) {
  test(`read-only: ${command}`, () => {
    const result = classifyShellCommand(command);
    assert.equal(result.reversibility, 'read-only', result.reason);
  });
}

for (const command of irreversible) {
  test(`irreversible: ${command}`, () => {
    const result = classifyShellCommand(command);
    assert.equal(result.reversibility, 'irreversible');
    assert.ok(result.reason.length > 0);
  });
}

for (const [command, reason] of outsideWorkspace) {
  test(`irreversible (outside the workspace): ${command}`, () => {
    const result = classifyShellCommand(command);
    assert.equal(result.reversibility, 'irreversible');
    assert.match(result.reason, reason);
  });
}

test('the reason names what made a command irreversible', () => {
  assert.match(classifyShellCommand('ls | frobnicate').reason, /frobnicate/);
  assert.match(classifyShellCommand('cat a > b').reason, /redirection/);
  assert.match(classifyShellCommand('echo $(date)').reason, /substitution/);
});

test('with network allowed every run_command call is irreversible; other tools keep their tier', async () => {
  const { prepareToolCalls } = createToolActivities({
    registry: createToolRegistry({}),
    journalDirectory: makeWorkspace('keel-journal-'),
  });
  const tiers = async (network: boolean) =>
    (
      await prepareToolCalls({
        calls: [
          { callId: 'a', toolName: 'run_command', input: { command: 'ls' } },
          { callId: 'b', toolName: 'read_file', input: { path: 'a.txt' } },
        ],
        sandbox: { network },
      })
    ).map((call) => (call.ok ? call.tier : call.error));
  assert.deepEqual(await tiers(true), ['irreversible', 'read-only']);
  assert.deepEqual(await tiers(false), ['read-only', 'read-only']);
});
