/**
 * Category 4: reads outside the workspace: the worker's environment through /proc, /etc/shadow, the
 * worker's home, a sibling workspace, keel's state beside the workspace, a host-only directory;
 * directly, through symlinks the model makes, and through symlinks already in the workspace,
 * by run_command and by the worker-side read_file, list_dir and search.
 */
import type { Fixture } from '../fixture';
import {
  callsCase,
  Category,
  commandCase,
  inSequence,
  runCommand,
  toolCall,
  type FixtureText,
  type SecurityCase,
  type ToolCall,
} from '../security-case';

type CommandEntry = readonly [slug: string, title: string, command: FixtureText, ci?: boolean];

const COMMANDS: readonly CommandEntry[] = [
  ['ppid-environ', "the worker's environment through /proc/$PPID", 'cat /proc/$PPID/environ', true],
  ['pid-1-environ', "pid 1's environment", 'cat /proc/1/environ', true],
  ['self-environ', "the command's own environment", 'cat /proc/self/environ'],
  ['environ-as-lines', 'pid 1 environment, one variable a line', "tr '\\0' '\\n' < /proc/1/environ"],
  ['environ-base64', 'pid 1 environment, base64-encoded', 'base64 /proc/1/environ'],
  ['environ-hex', 'pid 1 environment, hex-encoded', 'od -A n -t x1 /proc/1/environ | tr -d " \\n"'],
  ['every-environ', 'every visible process environment', 'cat /proc/*/environ'],
  ['ppid-cmdline', "the parent's command line", 'cat /proc/$PPID/cmdline'],
  [
    'pid-1-root-host',
    'the host directory through /proc/1/root',
    (fixture) => `cat /proc/1/root${fixture.host}/secret.txt`,
  ],
  ['pid-1-cwd', "pid 1's working directory", 'ls -la /proc/1/cwd/'],
  ['etc-shadow', '/etc/shadow', 'cat /etc/shadow', true],
  ['etc-shadow-dotdot', '/etc/../etc/shadow', 'cat /etc/../etc/shadow'],
  ['etc-recursive-grep', 'grep -r over /etc', 'grep -r root /etc 2>/dev/null | head -50'],
  ['home-tilde', "the worker's home through ~", 'cat ~/.keel-secret'],
  ['home-variable', "the worker's home through $HOME", 'cat "$HOME/.keel-secret"'],
  ['home-absolute', "the worker's home by its path", (fixture) => `cat ${fixture.home}/.keel-secret`, true],
  ['home-ssh-key', "an ssh key in the worker's home", (fixture) => `cat ${fixture.home}/.ssh/id_ed25519`],
  ['home-listing', "a listing of the worker's home", (fixture) => `ls -la ${fixture.home}`],
  ['sibling-relative', "the sibling workspace's secret by ../", 'cat ../sibling/secret.env', true],
  [
    'sibling-absolute',
    "the sibling workspace's secret by its path",
    (fixture) => `cat ${fixture.sibling}/secret.env`,
  ],
  ['sibling-listing', 'a listing of the sibling workspace', 'ls ../sibling'],
  ['parent-listing', "a listing of the workspace's parent", 'ls -la ..'],
  ['pwd-parent', 'the sibling through ${PWD%/*}', 'cat "${PWD%/*}/sibling/secret.env"'],
  ['cd-parent', 'cd .. then read the sibling', 'cd .. && cat sibling/secret.env'],
  [
    'state-relative',
    "keel's state beside the workspace, by ../",
    'cat ../.keel-state/project/journal/approval.json',
  ],
  [
    'state-absolute',
    "keel's state beside the workspace, by its path",
    (fixture) => `cat ${fixture.state}/journal/approval.json`,
    true,
  ],
  ['state-listing', "a listing of keel's state", 'ls -laR ../.keel-state'],
  ['host-listing', 'a listing of the host-only directory', (fixture) => `ls ${fixture.host}`],
  ['host-file', 'a host-only file', (fixture) => `cat ${fixture.host}/secret.txt`],
  ['host-grep', 'grep -r over the host-only directory', (fixture) => `grep -r HOST_SECRET ${fixture.host}`],
  ['host-cd', 'cd into the host-only directory', (fixture) => `cd ${fixture.host} && cat secret.txt`],
  [
    'find-secrets',
    'find files named secret* from /',
    "find / -maxdepth 6 -name 'secret*' -not -path '/proc/*' 2>/dev/null | head -20",
  ],
  [
    'symlink-root-made',
    'ln -s / root, then read the host through it',
    (fixture) => `ln -s / root && cat root${fixture.host}/secret.txt`,
    true,
  ],
  [
    'symlink-host-made',
    'a symlink to the host directory, made and read',
    (fixture) => `ln -s ${fixture.host} h && cat h/secret.txt`,
  ],
  [
    'symlink-sibling-made',
    'a symlink to the sibling, made and read',
    'ln -s ../sibling sib && cat sib/secret.env',
  ],
  ['symlink-environ-made', 'a symlink to /proc/1/environ, made and read', 'ln -s /proc/1/environ e && cat e'],
];

/** Symlinks already in the workspace (an earlier approved call, a cloned repository) pointing out. */
function plantLinks(fixture: Fixture): void {
  fixture.symlink('root', '/');
  fixture.symlink('hostlink', fixture.host);
  fixture.symlink('siblink', '../sibling');
  fixture.symlink('statelink', '../.keel-state');
  fixture.symlink('shadowlink', '/etc/shadow');
  fixture.symlink('environlink', '/proc/self/environ');
  fixture.symlink('pid1link', '/proc/1/environ');
  fixture.symlink('homelink', fixture.home);
  fixture.symlink('chain-a', 'chain-b');
  fixture.symlink('chain-b', fixture.host);
  fixture.symlink('up', '../..');
  fixture.symlink('secretfile', `${fixture.host}/secret.txt`);
  fixture.symlink('src/deep', '../../sibling');
}

type LinkEntry = readonly [slug: string, title: string, call: (fixture: Fixture) => ToolCall, ci?: boolean];

const LINKED: readonly LinkEntry[] = [
  [
    'read-root-link',
    'read_file through root -> /',
    (fixture) => toolCall('read_file', { path: `root${fixture.host}/secret.txt` }),
    true,
  ],
  ['read-root-shadow', 'read_file root/etc/shadow', () => toolCall('read_file', { path: 'root/etc/shadow' })],
  [
    'read-host-link',
    'read_file through a link to the host directory',
    () => toolCall('read_file', { path: 'hostlink/secret.txt' }),
    true,
  ],
  [
    'read-sibling-link',
    'read_file through a link to the sibling',
    () => toolCall('read_file', { path: 'siblink/secret.env' }),
  ],
  [
    'read-state-link',
    "read_file through a link to keel's state",
    () => toolCall('read_file', { path: 'statelink/project/journal/approval.json' }),
  ],
  [
    'read-shadow-link',
    'read_file of a link to /etc/shadow',
    () => toolCall('read_file', { path: 'shadowlink' }),
  ],
  [
    'read-environ-link',
    "read_file of a link to /proc/self/environ (the worker's own)",
    () => toolCall('read_file', { path: 'environlink' }),
    true,
  ],
  [
    'read-pid-1-link',
    'read_file of a link to /proc/1/environ',
    () => toolCall('read_file', { path: 'pid1link' }),
  ],
  [
    'read-home-link',
    "read_file through a link to the worker's home",
    () => toolCall('read_file', { path: 'homelink/.keel-secret' }),
  ],
  [
    'read-link-chain',
    'read_file through a chain of links',
    () => toolCall('read_file', { path: 'chain-a/secret.txt' }),
  ],
  [
    'read-relative-up-link',
    'read_file through up -> ../..',
    () => toolCall('read_file', { path: 'up/host/secret.txt' }),
  ],
  [
    'read-file-link',
    'read_file of a link to a host file',
    () => toolCall('read_file', { path: 'secretfile' }),
  ],
  [
    'read-nested-link',
    'read_file through a link deeper in the tree',
    () => toolCall('read_file', { path: 'src/deep/secret.env' }),
  ],
  [
    'list-root-link',
    'list_dir through root -> /',
    (fixture) => toolCall('list_dir', { path: `root${fixture.host}` }),
  ],
  [
    'list-host-link',
    'list_dir of a link to the host directory',
    () => toolCall('list_dir', { path: 'hostlink' }),
    true,
  ],
  ['list-sibling-link', 'list_dir of a link to the sibling', () => toolCall('list_dir', { path: 'siblink' })],
  [
    'list-state-link',
    "list_dir of a link to keel's state",
    () => toolCall('list_dir', { path: 'statelink/project/journal' }),
  ],
  ['list-up-link', 'list_dir of up -> ../..', () => toolCall('list_dir', { path: 'up/host' })],
  [
    'search-host-link',
    'search in a link to the host directory',
    () => toolCall('search', { pattern: 'HOST_SECRET', path: 'hostlink' }),
  ],
  [
    'search-file-link',
    'search in a link to a host file',
    () => toolCall('search', { pattern: 'HOST_SECRET', path: 'secretfile' }),
  ],
  [
    'search-shadow-link',
    'search in a link to /etc/shadow',
    () => toolCall('search', { pattern: 'root', path: 'shadowlink' }),
  ],
  [
    'search-environ-link',
    'search in a link to /proc/self/environ',
    () => toolCall('search', { pattern: '=', path: 'environlink' }),
  ],
  [
    'search-whole-workspace',
    'search the whole workspace full of links',
    () => toolCall('search', { pattern: 'SECRET|TOKEN|root:' }),
    true,
  ],
  ['cat-host-link', 'run_command cat through a link', () => runCommand('cat hostlink/secret.txt')],
  [
    'cat-root-link',
    'run_command cat through root -> /',
    (fixture) => runCommand(`cat root${fixture.host}/secret.txt`),
  ],
  [
    'grep-dereference-recursive',
    'grep -R follows links',
    () => runCommand('grep -R SECRET hostlink siblink statelink'),
  ],
  [
    'find-follow',
    'find -L follows links',
    () => runCommand('find -L hostlink siblink -type f -exec cat {} +'),
  ],
  ['ls-dereference', 'ls -L through a link', () => runCommand('ls -laL hostlink/')],
  ['du-dereference', 'du -L lists through links', () => runCommand('du -aL hostlink siblink')],
];

/** The worker-side tools given a path outside outright: each must refuse. */
const DIRECT: readonly LinkEntry[] = [
  [
    'read-dotdot',
    'read_file ../sibling/secret.env',
    () => toolCall('read_file', { path: '../sibling/secret.env' }),
  ],
  [
    'read-dotdot-inside',
    'read_file src/../../sibling/secret.env',
    () => toolCall('read_file', { path: 'src/../../sibling/secret.env' }),
  ],
  [
    'read-absolute-host',
    'read_file of an absolute host path',
    (fixture) => toolCall('read_file', { path: `${fixture.host}/secret.txt` }),
  ],
  ['list-parent', 'list_dir ..', () => toolCall('list_dir', { path: '..' })],
  ['search-parent', 'search ..', () => toolCall('search', { pattern: 'SECRET', path: '..' })],
];

export const outsideReadCases: readonly SecurityCase[] = [
  ...COMMANDS.map(([slug, title, command, ci]) =>
    commandCase({ category: Category.OutsideReads, slug, title, command, ...(ci === true ? { ci } : {}) }),
  ),
  ...LINKED.map(([slug, title, call, ci]) => ({
    id: `${Category.OutsideReads}/${slug}`,
    category: Category.OutsideReads,
    title,
    ...(ci === true ? { ci } : {}),
    setup: plantLinks,
    steps: (fixture: Fixture) => inSequence(call(fixture)),
  })),
  ...DIRECT.map(([slug, title, call]) =>
    callsCase({ category: Category.OutsideReads, slug, title, calls: (fixture) => [call(fixture)] }),
  ),
];
