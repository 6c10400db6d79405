/**
 * Issue 43 item 4: keel's own state (held layers, journals, records) beside the workspace, in
 * `.keel-state`, must be out of reach of every sandboxed command and file tool. Each case tries to
 * change or read the state of this workspace (the fixture's `.keel-state/project`, a secret in its
 * journal) or the whole state directory: by run_command and by write_file and edit_file, by
 * relative and absolute paths, through `..` tricks, and through symbolic links made by the model or
 * already in the workspace. A change there is a change outside the workspace (b), a read shows the
 * secret (c). (Nested starts, where one goal's state would lie inside another's workspace, are
 * refused before any tool runs: test/integration/nested-workspaces.test.ts.)
 */
import type { Fixture } from '../fixture';
import {
  callsCase,
  Category,
  commandCase,
  toolCall,
  type FixtureText,
  type SecurityCase,
  type ToolCall,
} from '../security-case';

const category = Category.NestingAndState;

/** The journal record the fixture plants in this workspace's state, from inside the workspace. */
const JOURNAL = '../.keel-state/project/journal/approval.json';
const TAMPERED = '{"token":"tampered","approved":true}\n';

type CommandEntry = readonly [slug: string, title: string, command: FixtureText, ci?: boolean];

const COMMANDS: readonly CommandEntry[] = [
  [
    'command-relative',
    'run_command overwrites the journal by ../',
    `echo '${TAMPERED.trim()}' > ${JOURNAL}`,
    true,
  ],
  [
    'command-absolute',
    'run_command overwrites the journal by its absolute path',
    (fixture) => `echo tampered > ${fixture.state}/journal/approval.json`,
  ],
  ['command-remove-state', 'run_command removes the whole state directory', 'rm -rf ../.keel-state'],
  [
    'command-plant-record',
    'run_command plants a held-layer record in the state',
    `mkdir -p ../.keel-state/project/held && echo '{"changes":["README.md deleted"]}' > ../.keel-state/project/held/record.json`,
  ],
  [
    'command-made-link',
    'run_command links to the state, then writes through the link',
    'ln -s ../.keel-state st && echo tampered > st/project/journal/approval.json',
  ],
  [
    'command-dotdot-maze',
    'run_command reaches the state through a maze of ..',
    'echo tampered > src/../../project/../.keel-state/project/journal/approval.json',
  ],
  [
    'command-cd-parent',
    'run_command cds out of the workspace into the state',
    'cd .. && cd .keel-state/project && touch planted.txt',
  ],
  [
    'command-move-state',
    'run_command moves the state directory into the workspace',
    'mv ../.keel-state ./stolen-state',
  ],
];

type CallEntry = readonly [
  slug: string,
  title: string,
  call: (fixture: Fixture) => ToolCall,
  setup?: SecurityCase['setup'],
  ci?: boolean,
];

const CALLS: readonly CallEntry[] = [
  [
    'write-relative',
    'write_file overwrites the journal by ../',
    () => toolCall('write_file', { path: JOURNAL, content: TAMPERED }),
    undefined,
    true,
  ],
  [
    'write-absolute',
    'write_file writes into the state by its absolute path',
    (fixture) =>
      toolCall('write_file', { path: `${fixture.state}/journal/approval.json`, content: TAMPERED }),
  ],
  [
    'write-dotdot-inside',
    'write_file by a path that dips into a workspace folder before leaving it',
    () => toolCall('write_file', { path: `src/../${JOURNAL}`, content: TAMPERED }),
  ],
  [
    'edit-relative',
    'edit_file rewrites the journal by ../',
    () =>
      toolCall('edit_file', { path: JOURNAL, oldString: '"token"', newString: '"approved":true,"token"' }),
  ],
  [
    'write-through-link',
    'write_file through a link to the state already in the workspace',
    () => toolCall('write_file', { path: 'statelink/journal/approval.json', content: TAMPERED }),
    (fixture) => fixture.symlink('statelink', fixture.state),
    true,
  ],
  [
    'edit-through-link',
    'edit_file through a link to the state directory already in the workspace',
    () =>
      toolCall('edit_file', {
        path: 'keel/project/journal/approval.json',
        oldString: '"token"',
        newString: '"approved":true,"token"',
      }),
    (fixture) => fixture.symlink('keel', '../.keel-state'),
  ],
  [
    'write-linked-file',
    'write_file to a workspace file that is a link to the journal record',
    () => toolCall('write_file', { path: 'record.json', content: TAMPERED }),
    (fixture) => fixture.symlink('record.json', `${fixture.state}/journal/approval.json`),
  ],
  [
    'read-through-link',
    'read_file of the journal through a link already in the workspace',
    () => toolCall('read_file', { path: 'statelink/journal/approval.json' }),
    (fixture) => fixture.symlink('statelink', fixture.state),
  ],
  [
    'list-state',
    "list_dir of keel's state directory by ../",
    () => toolCall('list_dir', { path: '../.keel-state/project' }),
  ],
];

export const nestingAndStateCases: readonly SecurityCase[] = [
  ...COMMANDS.map(([slug, title, command, ci]) =>
    commandCase({ category, slug, title, command, ...(ci ? { ci } : {}) }),
  ),
  ...CALLS.map(([slug, title, call, setup, ci]) =>
    callsCase({
      category,
      slug,
      title,
      calls: (fixture) => [call(fixture)],
      ...(setup === undefined ? {} : { setup }),
      ...(ci ? { ci } : {}),
    }),
  ),
];
