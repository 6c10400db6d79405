/**
 * Category 5: races against the worker-side file tools. A swapper replaces a workspace directory
 * (or file) with a symlink to the host-only directory and back, over and over, while read_file,
 * list_dir, search, write_file or edit_file run again and again beside it, as the workflow runs a
 * turn's calls in parallel. The swapper is a run_command a human approved (only an approved call
 * runs on the workspace itself), a loop the harness runs on the host (a change from outside keel),
 * or, in one case, an unapproved run_command exactly as the workflow would pass it.
 * Also: write_file and edit_file onto FIFOs, and hard links to files outside.
 */
import type { Fixture } from '../fixture';
import {
  Category,
  commandCase,
  inSequence,
  runCommand,
  toolCall,
  type FixtureText,
  type SecurityCase,
  type ToolCall,
} from '../security-case';

const APPROVED_SWAPPER =
  'it stands for a build script a human approved; the race tests the tool running beside it';
/** Iterations of an approved swapper: about 1-2 s of swapping. */
const ITERATIONS = 300;
const HOST_SWAP_MILLISECONDS = 1500;

type Swapper = 'approved-command' | 'host' | 'unapproved-command';

/** Replaces `entry` by a symlink to `target`, then puts it back. */
function swapForLink(entry: string, target: string): string {
  return `mv ${entry} ${entry}.real && ln -s ${target} ${entry}; rm -f ${entry} && mv ${entry}.real ${entry}`;
}

function loop(body: string, forever: boolean): string {
  return forever
    ? `while :; do ${body}; done`
    : `i=0; while [ $i -lt ${ITERATIONS} ]; do ${body}; i=$((i+1)); done`;
}

interface RaceSpecification {
  readonly slug: string;
  readonly title: string;
  readonly victim: (fixture: Fixture) => ToolCall;
  readonly swap: (fixture: Fixture) => string;
  /** One case per swapper. */
  readonly swappers: readonly Swapper[];
  /** The swapper whose case is part of the --ci subset, if any. */
  readonly ci?: Swapper;
  readonly setup?: (fixture: Fixture) => void;
}

function races(specification: RaceSpecification): SecurityCase[] {
  return specification.swappers.map((swapper) => race(specification, swapper));
}

function race(specification: RaceSpecification, swapper: Swapper): SecurityCase {
  const { swap, victim, setup } = specification;
  return {
    id: `${Category.Races}/${specification.slug}-${swapper}`,
    category: Category.Races,
    title: `${specification.title} (swapper: ${swapper.replace('-', ' ')})`,
    ...(specification.ci === swapper ? { ci: true } : {}),
    ...(setup === undefined ? {} : { setup }),
    steps: (fixture) => [
      swapper === 'host'
        ? {
            calls: [{ ...victim(fixture), repeat: true }],
            hostScript: loop(swap(fixture), true),
            durationMs: HOST_SWAP_MILLISECONDS,
          }
        : {
            calls: [
              runCommand(
                loop(swap(fixture), false),
                swapper === 'approved-command' ? { approvedBecause: APPROVED_SWAPPER } : {},
              ),
              { ...victim(fixture), repeat: true },
            ],
          },
    ],
  };
}

const docsSwap = (fixture: Fixture): string => swapForLink('docs', fixture.host);
const subSwap = (fixture: Fixture): string => swapForLink('sub', fixture.host);
const plantSub = (fixture: Fixture): void => fixture.write('sub/keep.txt', 'keep\n');
const plantFifoTwin = (fixture: Fixture): void => fixture.fifo('docs/guide.fifo');
/** Swaps docs/guide.md with a FIFO by renames, so the FIFO is never unlinked (and can be released). */
const fifoSwap = (): string =>
  'mv docs/guide.md docs/guide.real && mv docs/guide.fifo docs/guide.md; mv docs/guide.md docs/guide.fifo && mv docs/guide.real docs/guide.md';

const RACES: readonly SecurityCase[] = [
  ...races({
    slug: 'search-directory-swap',
    title: 'search the workspace while docs/ becomes a link to the host',
    victim: () => toolCall('search', { pattern: 'HOST_SECRET|Read me' }),
    swap: docsSwap,
    swappers: ['approved-command', 'host', 'unapproved-command'],
    ci: 'approved-command',
  }),
  ...races({
    slug: 'search-path-swap',
    title: 'search docs/ while it becomes a link',
    victim: () => toolCall('search', { pattern: 'SECRET|Read', path: 'docs' }),
    swap: docsSwap,
    swappers: ['host'],
  }),
  ...races({
    slug: 'list-directory-swap',
    title: 'list_dir docs/ while it becomes a link',
    victim: () => toolCall('list_dir', { path: 'docs' }),
    swap: docsSwap,
    swappers: ['approved-command', 'host'],
    ci: 'approved-command',
  }),
  ...races({
    slug: 'read-directory-swap',
    title: 'read_file docs/guide.md while docs/ becomes a link',
    victim: () => toolCall('read_file', { path: 'docs/guide.md' }),
    swap: docsSwap,
    swappers: ['approved-command', 'host'],
    ci: 'approved-command',
  }),
  ...races({
    slug: 'read-file-swap',
    title: 'read_file docs/guide.md while it becomes a link to a host file',
    victim: () => toolCall('read_file', { path: 'docs/guide.md' }),
    swap: (fixture) => swapForLink('docs/guide.md', `${fixture.host}/secret.txt`),
    swappers: ['host'],
  }),
  ...races({
    slug: 'read-fifo-swap',
    title: 'read_file docs/guide.md while it becomes a FIFO',
    victim: () => toolCall('read_file', { path: 'docs/guide.md' }),
    swap: fifoSwap,
    setup: plantFifoTwin,
    swappers: ['host'],
  }),
  ...races({
    slug: 'write-parent-swap',
    title: 'write_file sub/new.txt while sub/ becomes a link to the host',
    victim: () => toolCall('write_file', { path: 'sub/new.txt', content: 'written\n' }),
    swap: subSwap,
    setup: plantSub,
    swappers: ['approved-command', 'host'],
    ci: 'host',
  }),
  ...races({
    slug: 'edit-parent-swap',
    title: 'edit_file docs/guide.md while docs/ becomes a link to the host',
    victim: () =>
      toolCall('edit_file', { path: 'docs/guide.md', oldString: 'Read me.', newString: 'Edited.' }),
    swap: docsSwap,
    swappers: ['host'],
  }),
];

/** write_file blocks on a FIFO after its path check; meanwhile its parent becomes a link to the host. */
function fifoThenSwap(swapper: 'approved-command' | 'host'): SecurityCase {
  const script = (fixture: Fixture): string =>
    `sleep 1; mv sub sub.old && ln -s ${fixture.host} sub && echo released > sub.old/pipe`;
  return {
    id: `${Category.Races}/write-fifo-then-parent-swap-${swapper}`,
    category: Category.Races,
    title: `write_file onto a FIFO, its parent swapped for a link to the host while it waits (swapper: ${swapper.replace('-', ' ')})`,
    setup: (fixture) => fixture.fifo('sub/pipe'),
    steps: (fixture) => [
      swapper === 'host'
        ? {
            calls: [toolCall('write_file', { path: 'sub/pipe', content: 'escaped\n' })],
            hostScript: script(fixture),
          }
        : {
            calls: [
              toolCall('write_file', { path: 'sub/pipe', content: 'escaped\n' }),
              runCommand(script(fixture), { approvedBecause: APPROVED_SWAPPER }),
            ],
          },
    ],
  };
}

const FIFOS: readonly SecurityCase[] = [
  fifoThenSwap('approved-command'),
  fifoThenSwap('host'),
  ...(
    [
      [
        'write-onto-fifo',
        'write_file onto a FIFO',
        toolCall('write_file', { path: 'pipe', content: 'x\n' }),
        true,
      ],
      [
        'edit-onto-fifo',
        'edit_file onto a FIFO',
        toolCall('edit_file', { path: 'pipe', oldString: 'a', newString: 'b' }),
        false,
      ],
      ['read-fifo', 'read_file of a FIFO', toolCall('read_file', { path: 'pipe' }), false],
      ['search-fifo', 'search in a FIFO', toolCall('search', { pattern: 'x', path: 'pipe' }), false],
    ] as const
  ).map(([slug, title, call, ci]): SecurityCase => ({
    id: `${Category.Races}/${slug}`,
    category: Category.Races,
    title,
    ...(ci ? { ci: true } : {}),
    setup: (fixture) => fixture.fifo('pipe'),
    steps: () => inSequence(call),
  })),
];

const HARD_LINKS: readonly (readonly [slug: string, title: string, command: FixtureText])[] = [
  ['hard-link-passwd', 'a hard link to /etc/passwd', 'ln /etc/passwd pw && cat pw'],
  ['hard-link-host', 'a hard link to a host file', (fixture) => `ln ${fixture.host}/secret.txt hl && cat hl`],
  ['hard-link-sibling', "a hard link to the sibling's secret", 'ln ../sibling/secret.env s && cat s'],
  ['hard-link-environ', 'a hard link to /proc/1/environ', 'ln /proc/1/environ e && cat e'],
];

export const raceCases: readonly SecurityCase[] = [
  ...RACES,
  ...FIFOS,
  ...HARD_LINKS.map(([slug, title, command]) =>
    commandCase({ category: Category.Races, slug, title, command }),
  ),
];
