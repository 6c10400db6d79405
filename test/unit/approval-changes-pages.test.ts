import { test } from 'node:test';
import assert from 'node:assert/strict';
import { changesCommand, changesPage, PENDING_PATHS_SHOWN } from '../../src/cli/approval-changes-pages';
import { pendingEntries, pendingLines } from '../../src/cli/approval-lines';
import { changeSetDigest } from '../../src/workflows/approvals/change-set-digest';
import { heldChangesLines } from '../../src/workflows/tools/held-changes-text';
import type { PendingApprovalView } from '../../src/workflows/goal/messages';
import type { WorkspaceEffects } from '../../src/workflows/tools/tool-outcome';

/**
 * Issue 43, item 6: a long held list is shown in part under the call, with where to read the
 * rest, and whole a page at a time (`keel pending <goal> --changes <callId> [--page K]`).
 */

const names = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) => `${prefix}${String(index + 1).padStart(3, '0')}.txt`);
const long: WorkspaceEffects = { created: names(2, 'new'), modified: [], deleted: names(301, 'f') };

function pendingView(changes: WorkspaceEffects): PendingApprovalView {
  return {
    callId: 'call-9',
    toolName: 'run_command',
    summary: 'run_command: rm f*.txt',
    call: 'rm f*.txt',
    reversibility: 'irreversible',
    input: { command: 'rm f*.txt' },
    requestedAt: '2030-01-01T00:00:00.000Z',
    deadline: '2030-01-02T00:00:00.000Z',
    heldChanges: changes,
  };
}

test('keel pending names the first 50 paths of each kind, counts the rest and says where to read them', () => {
  const lines = pendingLines(
    pendingEntries('goal-1', { awaitingReview: false, pendingApprovals: [pendingView(long)] }),
  );
  const deletes = lines.find((line) => line.startsWith('    # deletes: '));
  assert.equal(deletes, `    # deletes: ${names(PENDING_PATHS_SHOWN, 'f').join(', ')} and 251 more`);
  assert.ok(lines.includes('    # creates: new001.txt, new002.txt'), 'a short kind is whole');
  assert.ok(
    lines.includes(
      `    # every path, a page at a time: keel pending goal-1 --changes call-9 (--json: all at once)`,
    ),
  );
  assert.ok(
    lines.includes(
      `    # these changes: ${changeSetDigest(long)} (keel approve … --changes it: any other set is refused)`,
    ),
  );
  // --json carries every path.
  const [entry] = pendingEntries('goal-1', { awaitingReview: false, pendingApprovals: [pendingView(long)] });
  assert.equal(entry?.heldChanges?.deleted.length, 301);
});

test('a list within 50 a kind is shown whole, with no pointer to pages', () => {
  const short = { created: [], modified: [], deleted: names(PENDING_PATHS_SHOWN, 'f') };
  const lines = pendingLines(
    pendingEntries('goal-1', { awaitingReview: false, pendingApprovals: [pendingView(short)] }),
  );
  assert.ok(lines.includes(`    # deletes: ${short.deleted.join(', ')}`));
  assert.equal(
    lines.some((line) => line.includes('a page at a time')),
    false,
  );
});

test('the details (heldChangesLines without a limit) name every path', () => {
  const [deletes] = heldChangesLines(long);
  assert.equal(deletes, `deletes: ${long.deleted.join(', ')}`);
  assert.deepEqual(heldChangesLines(long, { shown: 0 }), ['deletes: and 301 more', 'creates: and 2 more']);
});

test('pages: every path once, in order, a path a line, the digest of the whole set on each page', () => {
  const pageOf = (page: number) =>
    changesPage({ workflowId: 'goal-1', callId: 'call-9', changes: long, page, pageSize: 100 });
  const listed: string[] = [];
  for (let page = 1; page <= 4; page += 1) {
    const result = pageOf(page);
    assert.ok(result.ok, `page ${page}`);
    const lines = result.lines;
    assert.match(
      lines[0] ?? '',
      new RegExp(`^# goal-1 call-9 holds 303 changed paths; page ${page} of 4, paths `),
    );
    assert.equal(
      lines.at(-1),
      `# these changes (all 4 pages): ${changeSetDigest(long)} (keel approve goal-1 call-9 --changes ${changeSetDigest(long)})`,
    );
    if (page < 4) assert.equal(lines.at(-2), `# more: ${changesCommand('goal-1', 'call-9', page + 1)}`);
    listed.push(...lines.filter((line) => !line.startsWith('#')));
  }
  assert.deepEqual(listed, [
    ...long.deleted.map((path) => `delete  ${path}`),
    'create  new001.txt',
    'create  new002.txt',
  ]);
  const first = pageOf(1);
  assert.ok(
    first.ok && first.lines.includes('delete  f100.txt') && !first.lines.includes('delete  f101.txt'),
  );
  for (const page of [0, 5, 1.5, Number.NaN]) {
    const result = pageOf(page);
    assert.ok(
      !result.ok && /pages run from 1 to 4 \(303 paths, 100 a page\)/.test(result.message),
      String(page),
    );
  }
});

test('the last page adds what the list counts rather than names; an empty list is one page', () => {
  const counted: WorkspaceEffects = {
    created: ['a'],
    modified: [],
    deleted: [],
    collapsed: { '.git/': 7 },
    omitted: { created: 0, modified: 0, deleted: 3 },
  };
  const result = changesPage({ workflowId: 'g', callId: 'c', changes: counted, page: 1 });
  assert.ok(result.ok);
  assert.deepEqual(result.lines.slice(1, -1), [
    'create  a',
    'inside .git/: 7 entries',
    'deletes 3 more paths this list does not name',
  ]);
  const empty = changesPage({
    workflowId: 'g',
    callId: 'c',
    changes: { created: [], modified: [], deleted: [] },
    page: 1,
  });
  assert.ok(empty.ok && empty.lines[0] === '# g c holds 0 changed paths; page 1 of 1, paths 0-0:');
});

test('a path that could hide text on a terminal is shown escaped on its page', () => {
  const result = changesPage({
    workflowId: 'g',
    callId: 'c',
    changes: { created: [], modified: [], deleted: ['ok.txt\n\u001b[2Jrm -rf'] },
    page: 1,
  });
  assert.ok(result.ok);
  const [row] = result.lines.filter((line) => line.startsWith('delete'));
  assert.ok(row !== undefined && !row.includes('\n') && !row.includes('\u001b'), row);
});

test('keel pending: bad paging input is one clear line and exit 2, before any server is asked', async () => {
  const { main } = await import('../../src/cli/main');
  const cases: [string[], string][] = [
    [
      ['pending', '--changes', 'call-9'],
      'keel: --changes needs the goal: keel pending <workflowId> --changes <callId>\n',
    ],
    [['pending', '--page', '2'], 'keel: --page pages the list of --changes <callId>\n'],
    [
      ['pending', 'goal-1', '--changes', 'call-9', '--page', '0'],
      'keel: --page takes a page number from 1, not 0\n',
    ],
    [
      ['pending', 'goal-1', '--changes', 'call-9', '--page', '2x'],
      'keel: --page takes a page number from 1, not 2x\n',
    ],
  ];
  for (const [argv, expected] of cases) {
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk: string) => written.push(String(chunk)) > 0;
    try {
      // An address nothing listens on: reaching it would fail differently, and slowly.
      assert.equal(await main(['--address', '127.0.0.1:1', ...argv]), 2, argv.join(' '));
    } finally {
      process.stderr.write = write;
    }
    assert.deepEqual(written, [expected], argv.join(' '));
  }
});
