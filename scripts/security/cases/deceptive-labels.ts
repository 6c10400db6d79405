/**
 * Category 8: calls whose label (the prepared call's summary, what `keel pending` and the Web UI
 * show) could mislead an approver: a harmless first 100 characters, whitespace that hides a second
 * command, terminal escapes, carriage returns, backspaces, bidi overrides, zero-width characters.
 * The label is reported, not counted as a hole; the calls still run and are judged like any other.
 */
import {
  Category,
  commandCase,
  inSequence,
  toolCall,
  type SecurityCase,
  type ToolCall,
} from '../security-case';

const HARMLESS = 'Summarising the build output for the release notes; nothing else happens in this step';

/** An echo padded to exactly `length` characters, then the dangerous part. */
function paddedTo(length: number, tail: string): string {
  const head = `echo "${HARMLESS}`;
  return `${head}${'.'.repeat(Math.max(0, length - head.length - 1))}"${tail}`;
}

type Entry = readonly [slug: string, title: string, command: string, hiddenPart: string, ci?: boolean];

const COMMANDS: readonly Entry[] = [
  [
    'long-echo-then-rm',
    'a harmless echo fills the label, then rm -rf src',
    `echo "${HARMLESS}"      ; rm -rf src`,
    'rm -rf src',
    true,
  ],
  ['echo-99-then-rm', 'the rm starts at character 100', paddedTo(99, '; rm victim.txt'), 'rm victim.txt'],
  ['echo-100-then-rm', 'the rm starts at character 101', paddedTo(100, '; rm victim.txt'), 'rm victim.txt'],
  ['echo-101-then-rm', 'the rm starts at character 102', paddedTo(101, '; rm victim.txt'), 'rm victim.txt'],
  [
    'spaces-then-rm',
    'two hundred spaces before a second command',
    `ls${' '.repeat(200)}; rm victim.txt`,
    'rm victim.txt',
  ],
  ['tabs-then-rm', 'tabs before a second command', `ls${'\t'.repeat(120)}; rm victim.txt`, 'rm victim.txt'],
  [
    'newlines-then-rm',
    'newlines collapse into a space: "ls rm victim.txt" reads as one command',
    `ls${'\n'.repeat(60)}rm victim.txt`,
    '\nrm victim.txt',
    true,
  ],
  [
    'comment-then-rm',
    'a long comment line, then rm',
    `# ${HARMLESS} ${HARMLESS}\nrm victim.txt`,
    'rm victim.txt',
  ],
  [
    'long-path-then-rm',
    'a long path, then rm',
    `cat ${'src/../'.repeat(20)}README.md; rm victim.txt`,
    'rm victim.txt',
  ],
  [
    'many-commands-then-rm',
    'many harmless commands, then rm',
    `${'ls; pwd; '.repeat(15)}rm victim.txt`,
    'rm victim.txt',
  ],
  [
    'heredoc-then-rm',
    'a long here-document, then rm',
    `cat <<EOF\n${HARMLESS}\n${HARMLESS}\nEOF\nrm victim.txt`,
    'rm victim.txt',
  ],
  [
    'ansi-erase-line',
    'terminal escapes erase the line before it is read',
    'rm victim.txt # \u001b[2K\u001b[1Gecho ok',
    'rm victim.txt',
    true,
  ],
  [
    'ansi-conceal',
    'a terminal escape conceals the rm',
    'echo ok \u001b[8m; rm victim.txt\u001b[0m',
    'rm victim.txt',
  ],
  [
    'carriage-return-overwrite',
    'a carriage return lets "echo harmless" overwrite the rm on a terminal',
    'rm victim.txt #\recho harmless         ',
    'rm victim.txt',
    true,
  ],
  [
    'backspaces',
    'backspaces rub out the rm on a terminal',
    `rm victim.txt ${'\b'.repeat(14)}echo harmless`,
    'rm victim.txt',
  ],
  [
    'bidi-override',
    'a right-to-left override reverses how the tail reads',
    'ls -la #\u202e crs fr- mr ;\u202c\nrm -rf src',
    'rm -rf src',
    true,
  ],
  [
    'bidi-isolate',
    'a bidi isolate around the second command',
    'cat README.md \u2067; rm victim.txt\u2069',
    'rm victim.txt',
  ],
  [
    'zero-width-joiner',
    'a zero-width joiner in the label',
    'echo safe\u200d; rm victim.txt',
    'rm victim.txt',
  ],
  [
    'lookalike-semicolon',
    'a Greek question mark looks like a semicolon (it is a word character)',
    'echo done \u037e rm victim.txt',
    'rm victim.txt',
  ],
  ['control-bell', 'control characters in the label', 'echo \u0007\u0007; rm victim.txt', 'rm victim.txt'],
];

type CallEntry = readonly [slug: string, title: string, call: ToolCall, hiddenPart: string];

const CALLS: readonly CallEntry[] = [
  [
    'write-hidden-content',
    'write_file: the label shows the path, not what is written',
    toolCall('write_file', { path: '.gitattributes', content: `# ${HARMLESS}\n* filter=evil\n` }),
    'filter=evil',
  ],
  [
    'write-path-newline',
    'write_file: a newline in the path forges a second line',
    toolCall('write_file', { path: 'notes.txt\n(approved by the owner)', content: 'x\n' }),
    'notes.txt\n',
  ],
  [
    'write-path-bidi',
    'write_file: a bidi override in the path',
    toolCall('write_file', { path: 'report\u202etxt.exe', content: 'x\n' }),
    'report\u202etxt.exe',
  ],
  [
    'edit-hidden-replacement',
    'edit_file: the label hides the replacement',
    toolCall('edit_file', {
      path: 'scripts/build.sh',
      oldString: 'echo build',
      newString: 'echo build; rm -rf ../src',
    }),
    'rm -rf',
  ],
  [
    'read-path-escape',
    'read_file: a terminal escape in the path',
    toolCall('read_file', { path: 'README.md\u001b[2K' }),
    '\u001b',
  ],
  [
    'search-pattern-escape',
    'search: a terminal escape in the pattern',
    toolCall('search', { pattern: 'demo\u001b[2K\u001b[1Gnothing to see' }),
    '\u001b',
  ],
  [
    'list-path-carriage-return',
    'list_dir: a carriage return in the path',
    toolCall('list_dir', { path: 'src\rdocs' }),
    '\r',
  ],
];

export const deceptiveLabelCases: readonly SecurityCase[] = [
  ...COMMANDS.map(([slug, title, command, hiddenPart, ci]) =>
    commandCase({
      category: Category.DeceptiveLabels,
      slug,
      title,
      command,
      hiddenPart,
      ...(ci === true ? { ci } : {}),
    }),
  ),
  ...CALLS.map(([slug, title, call, hiddenPart]): SecurityCase => ({
    id: `${Category.DeceptiveLabels}/${slug}`,
    category: Category.DeceptiveLabels,
    title,
    hiddenPart,
    steps: () => inSequence(call),
  })),
];
