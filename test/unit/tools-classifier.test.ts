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

const notReadOnlyCommands = [
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
  // getopt_long takes any unambiguous prefix of a long option.
  ['long abbreviation', 'sort --out=README.md in.txt'],
  ['long abbreviation', 'sort --outp=x in.txt'],
  ['long abbreviation', 'sort --comp=sh -S 1K in.txt'],
  ['long abbreviation', 'sort --compress-prog=sh in.txt'],
  ['long abbreviation', 'sort --compress-program=sh in.txt'],
  ['long abbreviation', 'sort --temporary-directory=tmp in.txt'],
  ['long abbreviation', 'sort --tem=tmp in.txt'],
  ['long abbreviation', 'file --comp'],
  ['long abbreviation', 'file --compile'],
  ['long abbreviation', 'file --uncomp x.gz'],
  ['long abbreviation', 'file --preserve x'],
  ['long abbreviation', 'wc --files0=list.txt'],
  ['long abbreviation', 'du --files0-f=list.txt'],
  ['long abbreviation', 'md5sum --ch sums.txt'],
  ['long abbreviation', 'git diff --outp=patch.txt'],
  ['long abbreviation', 'git log -p --out=patch.txt'],
  ['long abbreviation', 'git show --ext'],
  ['long abbreviation', 'git log -p --textc'],
  ['long abbreviation', 'diff --to=x a.txt'],
  // Short options cluster; one taking a value takes the rest of the word or the next word.
  ['short cluster', 'file -bC'],
  ['short cluster', 'file -Cm magic'],
  ['short cluster', 'file -bz archive.gz'],
  ['short cluster', 'file -bp README.md'],
  ['short cluster', 'file -bf names.txt'],
  ['short cluster', 'sort -uo out.txt in.txt'],
  ['short cluster', 'sort -ro out.txt in.txt'],
  ['short cluster', 'sort -uTtmp in.txt'],
  ['short cluster', 'sort -nT tmp in.txt'],
  ['short cluster', 'tree -ao listing.txt'],
  ['short cluster', 'tree -aR -H . src'],
  ['short cluster', 'tree -Lo 2 listing.txt'],
  ['short cluster', 'rg -zi pattern'],
  ['short cluster', 'md5sum -bc sums.txt'],
  ['short cluster', 'sha256sum -c sums.txt'],
  ['short cluster', 'diff -rl a b'],
  ['short cluster', 'uniq -ci in.txt out.txt'],
  // uniq's second file operand is its output.
  ['positional output', 'uniq in.txt out.txt'],
  ['positional output', 'uniq -- in.txt out.txt'],
  ['positional output', 'uniq -- -c out.txt'],
  ['positional output', 'uniq -c -- -in- out.txt'],
  ['positional output', 'uniq in.txt -c'],
  ['positional output', 'uniq -u - out.txt'],
  ['positional output', 'uniq -f 1 in.txt out.txt'],
  ['positional output', 'uniq --skip-fields 1 in.txt out.txt'],
  ['positional output', 'sort names.txt | uniq - out.txt'],
  // --files0-from reads the names from a file the classifier cannot see.
  ['files0-from', 'wc --files0-from=list.txt'],
  ['files0-from', 'wc -l --files0-from list.txt'],
  ['files0-from', 'du --files0-from=list.txt'],
  ['files0-from', 'sort --files0-from=list.txt'],
  ['files0-from', 'find . -files0-from list.txt'],
  ['files0-from', 'file -f names.txt'],
  ['files0-from', 'tree --fromfile listing.txt'],
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
  // `.*` matches `..`; a quoted character outside the BMP must not shift where it is looked for.
  ['glob climbs', "ls '\u{1f600}'/../.*"],
  // Globs can expand to words that look like options.
  ['glob as option', 'sort *'],
  ['glob as option', 'file *'],
  ['glob as option', 'uniq *'],
  ['glob as option', 'wc -l *'],
  ['glob as option', 'du -sh *'],
  ['glob as option', 'find * -name x'],
  ['glob as option', 'find . -name *.ts'],
  ['glob as option', 'rg pattern *'],
  ['glob as option', 'git diff *'],
  ['glob as option', 'tree ?'],
  ['glob as option', 'sort -[o] out.txt in.txt'],
  ['glob as option', 'sort -k [1] in.txt'],
  ['glob as option', 'diff *.txt'],
  // Programs that run other programs, never read-only.
  ['runs a command', 'ls | xargs rm'],
  ['runs a command', 'xargs -a list.txt cat'],
  ['runs a command', 'env ls'],
  ['runs a command', 'env rm x'],
  ['runs a command', 'command ls'],
  ['runs a command', 'exec ls'],
  ['runs a command', 'nice ls'],
  ['runs a command', 'timeout 5 ls'],
  ['runs a command', 'nohup ls'],
  ['runs a command', 'eval ls'],
  ['runs a command', '. ./script.sh'],
  ['runs a command', 'source script.sh'],
  ['runs a command', 'builtin cd src'],
  ['runs a command', 'sh -c ls'],
  ['runs a command', 'bash script.sh'],
  ['runs a command', 'busybox ls'],
  ['runs a command', 'time ls'],
  ['runs a command', '! ls'],
  ['runs a command', '{ ls; }'],
  ['runs a command', 'if true; then ls; fi'],
  ['runs a command', 'for f in a; do cat $f; done'],
  ['runs a command', 'while true; do ls; done'],
  ['runs a command', 'ls() { rm x; }'],
  ['runs a command', 'PATH=. ls'],
  ['runs a command', 'alias ls=rm'],
  ['runs a command', 'export PATH=.'],
  // git: global options and subcommands.
  ['git global option', 'git -c core.pager=sh log'],
  ['git global option', 'git -c alias.x=!rm status'],
  ['git global option', 'git --exec-path=. status'],
  ['git global option', 'git --exec-path status'],
  ['git global option', 'git -C .. status'],
  ['git global option', 'git -C src status'],
  ['git global option', 'git --git-dir=.. log'],
  ['git global option', 'git --work-tree=.. status'],
  ['git global option', 'git --config-env=core.pager=EDITOR log'],
  ['git global option', 'git -p log'],
  ['git global option', 'git --paginate log'],
  ['git global option', 'git --namespace=x log'],
  ['git global option', 'git --bare log'],
  ['git global option', 'git -Pc core.pager=sh log'],
  ['git global option', 'git'],
  ['git option that writes or runs', 'git diff --output=patch.txt'],
  ['git option that writes or runs', 'git diff --output patch.txt'],
  ['git option that writes or runs', 'git log -p --output=patch.txt'],
  ['git option that writes or runs', 'git show --output=x HEAD'],
  ['git option that writes or runs', 'git show --ext-diff'],
  ['git option that writes or runs', 'git diff --ext-diff'],
  ['git option that writes or runs', 'git diff --textconv'],
  ['git option that writes or runs', 'git log --show-signature'],
  ['git option that writes or runs', 'git log --format=%G?'],
  ['git option that writes or runs', "git log --pretty='format:%h %GS'"],
  ['git option that writes or runs', "git log --format='%+GS'"],
  ['git option that writes or runs', "git show --pretty='tformat:% G?'"],
  ['git option that writes or runs', 'git log --pretty=mine'],
  ['git option that writes or runs', 'git diff --no-index a.txt b.txt'],
  ['git option that writes or runs', 'git diff --no-index /etc/passwd a.txt'],
  ['git option that writes or runs', 'git log --stdin'],
  ['git option that writes or runs', 'git blame --contents /etc/passwd README.md'],
  ['git subcommand', 'git push'],
  ['git subcommand', 'git fetch'],
  ['git subcommand', 'git pull'],
  ['git subcommand', 'git checkout main'],
  ['git subcommand', 'git stash'],
  ['git subcommand', 'git tag v1'],
  ['git subcommand', 'git config core.pager sh'],
  ['git subcommand', 'git gc'],
  ['git subcommand', 'git clean -fdx'],
  ['git subcommand', 'git reset --hard'],
  ['git subcommand', 'git add .'],
  ['git subcommand', 'git help log'],
  ['git subcommand', 'git stauts'],
  ['git branch', 'git branch -D feature'],
  ['git branch', 'git branch -m old new'],
  ['git branch', 'git branch -vd feature'],
  ['git branch', 'git branch --set-upstream-to=origin/main'],
  ['git branch', 'git branch -f main HEAD~1'],
  ['git branch', 'git branch --list feature'],
  // find actions (single-dash options are matched exactly, not abbreviated).
  ['find action', 'find . -delete'],
  ['find action', 'find . -exec rm {} +'],
  ['find action', 'find . -execdir rm {} \\;'],
  ['find action', 'find . -ok rm {} \\;'],
  ['find action', 'find . -okdir rm {} \\;'],
  ['find action', 'find . -fprint out.txt'],
  ['find action', 'find . -fprint0 out.txt'],
  ['find action', 'find . -fprintf out.txt %p'],
  ['find action', 'find . -fls out.txt'],
  ['find action', 'find . -name x -delet'],
  ['find action', 'find . -name x -o \\( -delete \\)'],
  ['find action', 'find . -newer /etc/passwd'],
  ['find action', 'find -D exec .'],
  ['find action', 'find -- . -delete'],
  // ripgrep runs preprocessors and decompressors.
  ['rg runs a program', 'rg --pre=sh pattern'],
  ['rg runs a program', 'rg --pre sh pattern'],
  ['rg runs a program', "rg --pre-glob '*' --pre sh pattern"],
  ['rg runs a program', "rg --pre-glob='*.gz' pattern"],
  ['rg runs a program', 'rg -z pattern'],
  ['rg runs a program', 'rg --search-zip pattern'],
  ['rg runs a program', 'rg --hostname-bin=sh pattern'],
  // tree writes with -o (and -R with -H).
  ['tree writes', 'tree -o listing.txt'],
  ['tree writes', 'tree -L 2 -o listing.txt'],
  ['tree writes', 'tree -R -H . src'],
  ['glob as option', 'tree -L 2 -P *.ts'],
  // grep and diff options that read files the words do not name.
  ['reads outside', 'grep -f /etc/passwd .'],
  ['reads outside', 'grep --exclude-from=/etc/hosts pattern .'],
  ['reads outside', 'grep -rf ../patterns .'],
  ['reads outside', 'grep -e x -f../patterns .'],
  ['reads outside', 'diff --to-file=x a.txt b.txt'],
  ['reads outside', 'diff --from-file=x a.txt'],
  ['reads outside', 'diff --paginate a.txt b.txt'],
  // cd leaves the workspace.
  ['cd', 'cd'],
  ['cd', 'cd ..'],
  ['cd', 'cd -'],
  ['cd', 'cd ~'],
  ['cd', 'cd -P ..'],
  ['cd', 'cd -P'],
  ['cd', 'cd -- -'],
  ['cd', 'cd -e src'],
  ['cd', 'cd /tmp; ls'],
  // Options the allowlists do not know are not read-only, even when harmless.
  ['unknown option', 'ls --frobnicate'],
  ['unknown option', 'cat -Z README.md'],
  ['unknown option', 'head --lines'],
  ['unknown option', 'grep --colour-me pattern .'],
  ['unknown option', 'stat --printf'],
];

/** Inspection commands that must be read-only (nearly all were before): else the hint stops being useful. */
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
  'sort -- -o out.txt',
  'uniq -c names.txt',
  'uniq -f 1 names.txt',
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
  ['sort --out=README.md in.txt', /--out may abbreviate --output, which writes a file/],
  ['file -bC', /file -C compiles a magic file/],
  ['uniq -- in.txt out.txt', /second operand/],
  ['wc --files0-from=list.txt', /reads the names of the files/],
  ["cat $'\\x2fetc\\x2fpasswd'", /ANSI-C quoting/],
  ['cat {/etc/shadow,x}', /brace expansion/],
  ['ls >&1x', /not a file descriptor/],
  ['cat 10>/dev/null README.md', /means different things in dash and bash/],
  ['cat README.md\rrm x', /control or invisible character/],
  ['cat \u2018x\u2019', /looks like sh syntax/],
  ['sort *', /may expand to file names that sort reads as options/],
  ['git -c core.pager=sh log', /git option -c before the subcommand/],
  ["git log --format='%+GS'", /runs gpg/],
  ['find . -fprint out.txt', /find -fprint is not a known read-only/],
  ['cat x=~/.netrc', /expands ~/],
  ['cd -P', /cd without a directory/],
  ['ls | | cat', /no command before it/],
  ['tree -Lo 2 listing.txt', /tree -o writes a file/],
  ['cat ${HOME}/.netrc', /\$\{…\} expansions are not classified/],
];

for (const [command, reason] of refusedBecause) {
  test(`refused for its own reason: ${JSON.stringify(command)}`, () => {
    const result = classifyShellCommand(command);
    assert.equal(result.readOnly, false);
    assert.match(result.reason, reason);
  });
}

for (const [hole, command] of notReadOnly) {
  test(`not read-only (${hole}): ${JSON.stringify(command)}`, () => {
    const result = classifyShellCommand(command);
    assert.equal(result.readOnly, false, result.reason);
    assert.ok(result.reason.length > 0);
  });
}

for (const command of staysReadOnly) {
  test(`stays read-only: ${JSON.stringify(command)}`, () => {
    const result = classifyShellCommand(command);
    assert.equal(result.readOnly, true, result.reason);
  });
}

for (const command of readOnly) {
  test(`read-only: ${command}`, () => {
    const result = classifyShellCommand(command);
    assert.equal(result.readOnly, true, result.reason);
  });
}

for (const command of notReadOnlyCommands) {
  test(`not read-only: ${command}`, () => {
    const result = classifyShellCommand(command);
    assert.equal(result.readOnly, false);
    assert.ok(result.reason.length > 0);
  });
}

for (const [command, reason] of outsideWorkspace) {
  test(`not read-only (outside the workspace): ${command}`, () => {
    const result = classifyShellCommand(command);
    assert.equal(result.readOnly, false);
    assert.match(result.reason, reason);
  });
}

/** find's actions that delete, run a program or write a file: each one refused on its own. */
const findActions: ReadonlyArray<readonly [string, string]> = [
  ['-delete', 'find . -name x -delete'],
  ['-exec', 'find . -exec cat {} +'],
  ['-execdir', 'find . -execdir rm {} \\;'],
  ['-ok', 'find . -ok rm {} \\;'],
  ['-okdir', 'find . -okdir rm {} \\;'],
  ['-fprint', 'find . -fprint out.txt'],
  ['-fprint0', 'find . -fprint0 out.txt'],
  ['-fprintf', 'find . -fprintf out.txt %p'],
  ['-fls', 'find . -fls out.txt'],
  ['-files0-from', 'find -files0-from list.txt'],
];

for (const [action, command] of findActions) {
  test(`find ${action} deletes, runs or writes: ${JSON.stringify(command)} is not read-only, because of ${action}`, () => {
    const result = classifyShellCommand(command);
    assert.equal(result.readOnly, false);
    assert.equal(result.reason, `find ${action} is not a known read-only test or action`);
  });
}

test('tee writes its operands: "tee out.txt" and "ls | tee out.txt" are not read-only, because of tee', () => {
  for (const command of ['tee out.txt', 'ls | tee out.txt', 'cat README.md | tee -a log.txt']) {
    const result = classifyShellCommand(command);
    assert.equal(result.readOnly, false, command);
    assert.equal(result.reason, '"tee" is not a known read-only command', command);
  }
});

test('the reason names what made a command not read-only', () => {
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
