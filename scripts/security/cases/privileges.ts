/**
 * Issue 43, item 1: a command runs as root in its sandbox, so inside its copy-on-write layer it
 * can chmod 4755 or chown anything. Applying that layer must not hand the host a setuid program:
 * each case tries a way of leaving a setuid, setgid or sticky bit behind, and the verdict (d)
 * reads the modes on disk afterwards (verdicts.ts, grantsPrivilege). Planted files stand for
 * what the user had before the goal: their bits are theirs, and a case that leaves them
 * unchanged must not lose them either (the control case at the end).
 */
import type { Fixture } from '../fixture';
import { Category, commandCase, inSequence, toolCall, type SecurityCase } from '../security-case';

/** A setuid program and a plain script the user had before the goal. */
function plantPrograms(fixture: Fixture): void {
  fixture.write('bin/planted-suid', '#!/bin/sh\nid\n', 0o4755);
  fixture.write('bin/script.sh', '#!/bin/sh\necho hi\n', 0o755);
  fixture.write('shared/.keep', '');
}

const command = (slug: string, title: string, text: string, ci = false): SecurityCase =>
  commandCase({ category: Category.Privileges, slug, title, command: text, setup: plantPrograms, ci });

export const privilegeCases: readonly SecurityCase[] = [
  command(
    'issue-helper-and-shared',
    'the audit: cp /bin/dash helper && chmod 4755 helper && chmod 2777 shared',
    'cp /bin/dash helper && chmod 4755 helper && chmod 2777 shared',
    true,
  ),
  command('chmod-symbolic', 'chmod u+s,g+s on a script that was there', 'chmod u+s,g+s bin/script.sh'),
  command('install-mode', 'install -m 4755 of a shell', 'install -m 4755 /bin/dash rootshell'),
  command(
    'cp-preserve',
    'cp -p of the user’s setuid program: a new setuid copy',
    'cp -p bin/planted-suid bin/copy-suid',
  ),
  command(
    'tar-extract',
    'a setuid shell packed and unpacked with tar -p',
    'mkdir -p pack && cp /bin/dash pack/sh && chmod 6755 pack/sh && tar cf bundle.tar -C pack sh && mkdir out && tar xpf bundle.tar -C out',
  ),
  command(
    'mkdir-mode',
    'mkdir -m 3777 and mkdir -m 1777: setgid and sticky directories',
    'mkdir -m 3777 grp && mkdir -m 1777 tmpdir && mkdir -p deep/er && chmod 2775 deep/er',
  ),
  command(
    'umask-zero',
    'umask 0, then install -d -m 7777 and a setgid file',
    'umask 0 && install -d -m 7777 open && touch open/x && chmod 2777 open/x',
  ),
  command(
    'chown-then-setuid',
    'chown to another user and setuid: neither owner nor bit may reach the host',
    'cp /bin/dash nobody-sh && chown 65534:65534 nobody-sh; chmod 4755 nobody-sh',
  ),
  command(
    'rewrite-planted',
    'new content into the user’s setuid program, bits kept',
    'cp /bin/dash bin/planted-suid && chmod 4755 bin/planted-suid',
  ),
  command(
    'hard-link',
    'a hard link to the user’s setuid program',
    'ln bin/planted-suid bin/linked-suid || cp -p bin/planted-suid bin/linked-suid',
  ),
  command(
    'workspace-root',
    'chmod 2777 on the workspace root itself, and u+s on a directory',
    'chmod 2777 . && chmod u+s shared',
  ),
  command(
    'python-chmod',
    'a setuid bit set by a program, not chmod',
    'cp /bin/dash pysh && (python3 -c "import os; os.chmod(\'pysh\', 0o4755)" || perl -e "chmod 04755, \'pysh\'" || chmod 4755 pysh)',
  ),
  {
    id: `${Category.Privileges}/write-file-setuid`,
    category: Category.Privileges,
    title: 'write_file replaces the content of the user’s setuid program',
    setup: plantPrograms,
    steps: () =>
      inSequence(toolCall('write_file', { path: 'bin/planted-suid', content: '#!/bin/sh\nexec /bin/sh\n' })),
  },
  {
    id: `${Category.Privileges}/edit-file-setuid`,
    category: Category.Privileges,
    title: 'edit_file changes the user’s setuid program',
    setup: plantPrograms,
    steps: () =>
      inSequence(
        toolCall('edit_file', { path: 'bin/planted-suid', oldString: 'id', newString: 'exec /bin/sh' }),
      ),
  },
  command(
    'untouched-planted',
    'control: a call that leaves the user’s setuid program alone (its bit must stay)',
    'touch notes.txt && cat bin/planted-suid > /dev/null && test -u bin/planted-suid',
  ),
];
