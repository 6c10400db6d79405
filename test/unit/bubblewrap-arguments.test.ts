import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, lstatSync, readlinkSync } from 'node:fs';
import {
  bubblewrapArguments,
  ETC_ALLOWLIST,
  SANDBOX_HOME,
} from '../../src/activities/tools/sandbox/bubblewrap-arguments';

// The sandbox's bwrap arguments, rule by rule, without running bwrap (sandbox.test.ts runs it):
// which namespaces, which binds, in which order. Each option of bwrap is matched with its values.

const WORKSPACE = '/srv/keel/workspace';

function argumentsFor(overrides: Partial<Parameters<typeof bubblewrapArguments>[0]> = {}): string[] {
  return bubblewrapArguments({ workspace: WORKSPACE, network: false, access: 'read-only', ...overrides });
}

/** Every occurrence of `option` with the `count` values after it. */
function occurrences(list: readonly string[], option: string, count: number): string[][] {
  const found: string[][] = [];
  list.forEach((value, index) => {
    if (value === option) found.push(list.slice(index + 1, index + 1 + count));
  });
  return found;
}

test('every namespace is new (no network), inside a user namespace that cannot make another', () => {
  const list = argumentsFor();
  assert.deepEqual(list.slice(0, 3), ['--unshare-all', '--unshare-user', '--disable-userns']);
  assert.equal(list.includes('--share-net'), false);
});

test('the network comes back only when the goal allows it, right after --unshare-all', () => {
  assert.deepEqual(argumentsFor({ network: true }).slice(0, 2), ['--unshare-all', '--share-net']);
});

test('every capability is dropped; the sandbox dies with the worker and has no terminal of its own', () => {
  const list = argumentsFor();
  assert.deepEqual(occurrences(list, '--cap-drop', 1), [['ALL']]);
  assert.ok(list.includes('--die-with-parent'));
  assert.ok(list.includes('--new-session'));
});

test('the command runs as the worker unless an identity is given: then --uid and --gid are its numbers', () => {
  assert.equal(argumentsFor().includes('--uid'), false);
  assert.equal(argumentsFor().includes('--gid'), false);
  const list = argumentsFor({ identity: { uid: 1234, gid: 5678 } });
  assert.deepEqual(occurrences(list, '--uid', 1), [['1234']]);
  assert.deepEqual(occurrences(list, '--gid', 1), [['5678']]);
});

test('/usr is bound read-only; /proc, /dev and a private /tmp (the HOME) are fresh; /etc/mtab is /proc/self/mounts', () => {
  const list = argumentsFor();
  assert.deepEqual(occurrences(list, '--ro-bind', 2)[0], ['/usr', '/usr']);
  assert.deepEqual(occurrences(list, '--proc', 1), [['/proc']]);
  assert.deepEqual(occurrences(list, '--dev', 1), [['/dev']]);
  assert.deepEqual(occurrences(list, '--tmpfs', 1), [[SANDBOX_HOME]]);
  assert.equal(SANDBOX_HOME, '/tmp');
  assert.deepEqual(occurrences(list, '--symlink', 2).at(-1), ['../proc/self/mounts', '/etc/mtab']);
});

test('/etc is an empty directory with only the allowlisted entries bound read-only, if the host has them', () => {
  const list = argumentsFor();
  assert.deepEqual(occurrences(list, '--dir', 1), [['/etc']]);
  const etc = occurrences(list, '--ro-bind-try', 2);
  assert.deepEqual(
    etc,
    ETC_ALLOWLIST.map((entry) => [`/etc/${entry}`, `/etc/${entry}`]),
  );
  assert.ok(
    list.indexOf('--dir') < list.indexOf('--ro-bind-try'),
    '/etc is made before entries bind into it',
  );
});

test('the /etc allowlist is exactly the 24 entries ordinary programs need, never ssl/private, shadow or tokens', () => {
  // An entry added here is a decision (a planted secret in /etc becomes visible): it must change this list too.
  assert.deepEqual(ETC_ALLOWLIST, [
    ...['passwd', 'group', 'nsswitch.conf'], // user and group names
    ...['hosts', 'host.conf', 'resolv.conf', 'gai.conf', 'services', 'protocols', 'networks'], // lookups
    ...['ld.so.cache', 'ld.so.conf', 'ld.so.conf.d'], // the dynamic linker
    ...['localtime', 'timezone', 'alternatives'],
    ...['ssl/certs', 'ssl/openssl.cnf', 'ca-certificates.conf'], // TLS verification
    ...['mime.types', 'magic', 'os-release', 'debian_version', 'locale.alias'],
  ]);
  for (const secret of ['shadow', 'ssl/private', 'npmrc', 'ssh', 'pip.conf'])
    assert.equal(ETC_ALLOWLIST.includes(secret), false, secret);
});

test('/bin, /sbin, /lib… mirror the host: a symlink stays the same symlink, a directory is bound read-only', () => {
  const list = argumentsFor();
  for (const directory of ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32']) {
    const symlinked = occurrences(list, '--symlink', 2).filter(([, at]) => at === directory);
    const bound = occurrences(list, '--ro-bind', 2).filter(([, at]) => at === directory);
    if (!existsSync(directory) && !isLink(directory)) {
      assert.deepEqual([...symlinked, ...bound], [], `${directory} is absent on this host`);
    } else if (lstatSync(directory).isSymbolicLink()) {
      assert.deepEqual(symlinked, [[readlinkSync(directory), directory]], directory);
      assert.deepEqual(bound, [], directory);
    } else {
      assert.deepEqual(bound, [[directory, directory]], directory);
      assert.deepEqual(symlinked, [], directory);
    }
  }
  assert.ok(
    occurrences(list, '--symlink', 2).some(([, at]) => at === '/bin') ||
      occurrences(list, '--ro-bind', 2).some(([, at]) => at === '/bin'),
    'this host has a /bin, so the test above checked one',
  );
});

function isLink(file: string): boolean {
  try {
    return lstatSync(file).isSymbolicLink();
  } catch {
    return false;
  }
}

test('a read-only call binds the workspace read-only at its own path, and runs in it, after /tmp', () => {
  const list = argumentsFor({ access: 'read-only' });
  assert.deepEqual(list.slice(-5), ['--ro-bind', WORKSPACE, WORKSPACE, '--chdir', WORKSPACE]);
  assert.ok(
    list.indexOf('--tmpfs') < list.lastIndexOf('--ro-bind'),
    'a workspace under /tmp binds over the tmpfs',
  );
});

test('a read-write call binds its source (a layer, or the workspace by default) writable at the workspace path', () => {
  assert.deepEqual(argumentsFor({ access: 'read-write' }).slice(-5), [
    '--bind',
    WORKSPACE,
    WORKSPACE,
    '--chdir',
    WORKSPACE,
  ]);
  assert.deepEqual(argumentsFor({ access: 'read-write', source: '/srv/layers/7/merged' }).slice(-5), [
    '--bind',
    '/srv/layers/7/merged',
    WORKSPACE,
    '--chdir',
    WORKSPACE,
  ]);
});

/** How many values each bwrap option takes: a word that is none of these would be run as the command. */
const ARITY: Readonly<Record<string, number>> = {
  '--unshare-all': 0,
  '--share-net': 0,
  '--unshare-user': 0,
  '--disable-userns': 0,
  '--uid': 1,
  '--gid': 1,
  '--cap-drop': 1,
  '--die-with-parent': 0,
  '--new-session': 0,
  '--ro-bind': 2,
  '--ro-bind-try': 2,
  '--bind': 2,
  '--symlink': 2,
  '--dir': 1,
  '--proc': 1,
  '--dev': 1,
  '--tmpfs': 1,
  '--chdir': 1,
};

test('the list is only options with their values: no stray word that bwrap would take for the command', () => {
  for (const list of [argumentsFor(), argumentsFor({ network: true, identity: { uid: 1, gid: 1 } })]) {
    let index = 0;
    while (index < list.length) {
      const option = list[index] ?? '';
      const arity = ARITY[option];
      assert.notEqual(arity, undefined, `argument ${index} is not a bwrap option: ${JSON.stringify(option)}`);
      index += 1 + (arity ?? 0);
    }
    assert.equal(index, list.length);
  }
});
