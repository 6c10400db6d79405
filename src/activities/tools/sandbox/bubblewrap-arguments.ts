import { lstatSync, readlinkSync } from 'node:fs';

/**
 * The /etc entries a sandboxed command sees; everything else in /etc (a planted secret, npmrc or
 * pip.conf with tokens, ssh host keys, shadow) stays invisible. Each is here because ordinary
 * programs fail or misbehave without it:
 * - passwd, group, nsswitch.conf: user and group names (ls -l, id, git, whoami);
 * - hosts, host.conf, resolv.conf, gai.conf, services, protocols, networks: name and port lookups,
 *   needed only when the goal allows network, harmless otherwise;
 * - ld.so.cache, ld.so.conf, ld.so.conf.d: the dynamic linker finds shared libraries;
 * - localtime, timezone: local time in date, ls -l, git log;
 * - alternatives: Debian's /usr/bin/awk, editor, java … are symlinks through it;
 * - ssl/certs, ssl/openssl.cnf, ca-certificates.conf: TLS verification (never ssl/private);
 * - mime.types, magic: file(1) and tools that guess content types;
 * - os-release, debian_version: tools that ask which distribution they run on;
 * - locale.alias: locale names resolve.
 */
export const ETC_ALLOWLIST: readonly string[] = [
  'passwd',
  'group',
  'nsswitch.conf',
  'hosts',
  'host.conf',
  'resolv.conf',
  'gai.conf',
  'services',
  'protocols',
  'networks',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'timezone',
  'alternatives',
  'ssl/certs',
  'ssl/openssl.cnf',
  'ca-certificates.conf',
  'mime.types',
  'magic',
  'os-release',
  'debian_version',
  'locale.alias',
];

/** Top-level system directories: usually symlinks into /usr (merged /usr), directories otherwise. */
const SYSTEM_DIRECTORIES = ['/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32'] as const;

/** The private, writable /tmp; HOME points here so dotfiles land in the sandbox, not the worker's home. */
export const SANDBOX_HOME = '/tmp';

/** How a sandboxed command sees the workspace. */
export type WorkspaceAccess = 'read-only' | 'read-write';

/**
 * bwrap arguments that run `/bin/sh -c command` with the system read-only and the workspace
 * bound at its own path: read-only for a read-only call (the kernel, not a parser of shell text,
 * keeps it from writing), or read-write from `source` (a copy-on-write layer's merged view, or
 * the workspace itself). Order matters to bwrap: /tmp is mounted before the workspace, so a
 * workspace under /tmp is bound on top of the private tmpfs.
 */
export function bubblewrapArguments(options: {
  workspace: string;
  network: boolean;
  access: WorkspaceAccess;
  /** What to bind at the workspace's path (default: the workspace itself). */
  source?: string;
  /** The uid and gid the command runs as (default: bwrap's, the worker's own). */
  identity?: { uid: number; gid: number };
}): string[] {
  return [
    // New namespaces for everything (pid: /proc shows only the sandbox; net: no network), then
    // the network back only when the goal allows it.
    '--unshare-all',
    ...(options.network ? ['--share-net'] : []),
    // A user namespace of its own, in which no further one can be made: a command cannot build
    // itself a namespace where it holds capabilities again.
    '--unshare-user',
    '--disable-userns',
    ...(options.identity
      ? ['--uid', String(options.identity.uid), '--gid', String(options.identity.gid)]
      : []),
    // Root inside would otherwise keep capabilities (mknod a disk and mount it, for one).
    '--cap-drop',
    'ALL',
    // The sandbox dies with the worker (SIGKILL included): nothing runs on past its timeout.
    '--die-with-parent',
    // No controlling terminal to push input into (TIOCSTI).
    '--new-session',
    '--ro-bind',
    '/usr',
    '/usr',
    ...SYSTEM_DIRECTORIES.flatMap(systemDirectory),
    '--dir',
    '/etc',
    ...ETC_ALLOWLIST.flatMap((entry) => ['--ro-bind-try', `/etc/${entry}`, `/etc/${entry}`]),
    '--symlink',
    '../proc/self/mounts',
    '/etc/mtab', // df and mount read it
    '--proc',
    '/proc',
    '--dev',
    '/dev',
    '--tmpfs',
    '/tmp',
    options.access === 'read-only' ? '--ro-bind' : '--bind',
    options.source ?? options.workspace,
    options.workspace,
    '--chdir',
    options.workspace,
  ];
}

/** A symlink is recreated as the same symlink; a real directory is bound read-only; absent, nothing. */
function systemDirectory(directory: string): string[] {
  try {
    const stat = lstatSync(directory);
    if (stat.isSymbolicLink()) return ['--symlink', readlinkSync(directory), directory];
    if (stat.isDirectory()) return ['--ro-bind', directory, directory];
  } catch {
    // not on this host
  }
  return [];
}
