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
  ['cat ${HOME}/.netrc', /variable/],
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
