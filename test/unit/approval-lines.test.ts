import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pendingEntries, pendingLines } from '../../src/cli/approval-lines';
import type { PendingApprovalView } from '../../src/workflows/goal/messages';
import { callText } from '../../src/workflows/tools/call-text';
import { shorten } from '../../src/workflows/tools/suggest-call';
import { changeSetDigest } from '../../src/workflows/approvals/change-set-digest';

/** A pending run_command call as the status query reports it. */
function approval(command: string, overrides: Partial<PendingApprovalView> = {}): PendingApprovalView {
  const input = { command };
  return {
    callId: 'toolu_01',
    toolName: 'run_command',
    summary: `run_command: ${shorten(command, 100)}`,
    call: callText(input),
    reversibility: 'irreversible',
    input,
    requestedAt: '2030-01-01T00:00:00.000Z',
    deadline: '2030-01-02T00:00:00.000Z',
    ...overrides,
  };
}

const DEADLINE = '(until 2030-01-02T00:00:00.000Z)';

test('keel pending: the label line as before, and the whole call under it', () => {
  const command = `echo "${'harmless '.repeat(10)}"      ; rm -rf src`;
  const lines = pendingLines(
    pendingEntries('goal-1', { awaitingReview: false, pendingApprovals: [approval(command)] }),
  );
  assert.deepEqual(lines, [
    `goal-1  toolu_01  irreversible  run_command: ${shorten(command, 100)}  ${DEADLINE}`,
    `    ${command}`,
  ]);
  assert.doesNotMatch(lines[0] ?? '', /rm -rf/, 'the label alone would hide it');
});

test('keel pending: a long call is printed whole, a multi-line one indented line by line', () => {
  const long = `echo ${'a'.repeat(5_000)} ; rm -rf src`;
  const multiLine = 'cd build &&\n\trm -rf ../src';
  const lines = pendingLines(
    pendingEntries('goal-1', {
      awaitingReview: false,
      pendingApprovals: [approval(long), approval(multiLine, { callId: 'toolu_02' })],
    }),
  );
  assert.deepEqual(lines.slice(1), [
    `    ${long}`,
    `goal-1  toolu_02  irreversible  run_command: cd build && rm -rf ../src  ${DEADLINE}`,
    '    cd build &&',
    '    \trm -rf ../src',
  ]);
});

test('keel pending: nothing in the label or the call can redraw or reorder the terminal', () => {
  const command = 'echo done\r\x1b[2K\u202Ecrs fr- mr';
  const [label, call] = pendingLines(
    pendingEntries('goal-1', {
      awaitingReview: false,
      pendingApprovals: [approval(command, { summary: 'run_command: echo done\x1b[2K' })],
    }),
  );
  assert.equal(label, `goal-1  toolu_01  irreversible  run_command: echo done\\x1b[2K  ${DEADLINE}`);
  assert.equal(call, '    echo done\\r\\x1b[2K\\u{202E}crs fr- mr');
});

test('keel pending --json entries carry the whole call and the input; reviews have neither', () => {
  const command = 'make deploy';
  assert.deepEqual(
    pendingEntries('goal-1', { awaitingReview: true, pendingApprovals: [approval(command)] }),
    [
      {
        workflowId: 'goal-1',
        callId: 'review',
        reversibility: 'output',
        summary: 'awaiting a human review of its output',
        deadline: '',
      },
      {
        workflowId: 'goal-1',
        callId: 'toolu_01',
        toolName: 'run_command',
        reversibility: 'irreversible',
        summary: 'run_command: make deploy',
        deadline: '2030-01-02T00:00:00.000Z',
        call: 'make deploy',
        input: { command },
      },
    ],
  );
});

test('keel pending: reviews keep their line, and an empty list says so', () => {
  assert.deepEqual(pendingLines(pendingEntries('goal-2', { awaitingReview: true, pendingApprovals: [] })), [
    'goal-2  review  awaiting a human review of its output  (keel review goal-2 --accept | --reject)',
  ]);
  assert.deepEqual(pendingLines([]), ['no tool calls or outputs are awaiting a human']);
});

test('keel pending: a call held on its layer lists every change approval would apply, and why it waits', () => {
  const held = approval('rm -rf build && echo x > out.txt', {
    callId: 'call-4',
    reason: 'its changes go beyond a mutating call: deletes build, which existed before the call',
    heldChanges: {
      created: ['out.txt'],
      modified: [],
      deleted: ['build/'],
      omitted: { created: 0, modified: 0, deleted: 3 },
      collapsed: { '.git/': 2 },
    },
  });
  const lines = pendingLines(pendingEntries('goal-1', { awaitingReview: false, pendingApprovals: [held] }));
  assert.deepEqual(lines.slice(1), [
    '    rm -rf build && echo x > out.txt',
    '    # ran on a copy-on-write layer; approving applies these changes, denying discards them:',
    '    # deletes: build/ and 3 more',
    '    # creates: out.txt',
    '    # inside .git/: 2 entries',
    `    # these changes: ${changeSetDigest(held.heldChanges ?? { created: [], modified: [], deleted: [] })} (keel approve … --changes it: any other set is refused)`,
    '    # why it waits: its changes go beyond a mutating call: deletes build, which existed before the call',
  ]);
  const [entry] = pendingEntries('goal-1', { awaitingReview: false, pendingApprovals: [held] });
  assert.match(entry?.changesDigest ?? '', /^sha256:[0-9a-f]{64}$/, '--json carries the digest');
  assert.equal(
    entry?.changesDigest,
    changeSetDigest(held.heldChanges ?? { created: [], modified: [], deleted: [] }),
  );
  const [plain] = pendingEntries('goal-1', { awaitingReview: false, pendingApprovals: [approval('ls')] });
  assert.equal(plain?.changesDigest, undefined, 'a call holding nothing has no digest');
});

test("keel pending: a mutating call's approver reads that the decision covers its tier only (issue 43)", () => {
  const lines = pendingLines(
    pendingEntries('goal-1', {
      awaitingReview: false,
      pendingApprovals: [approval('npm test', { reversibility: 'mutating', reason: 'the goal asks' })],
    }),
  );
  assert.deepEqual(lines.slice(1), [
    '    npm test',
    '    # why it waits: the goal asks',
    "    # approving decides this mutating call only: a deletion, a replacement, or a change to git's configuration or hooks it makes is held, not applied, and waits for an approver of irreversible calls",
  ]);
});

test('keel pending: a mutating MCP call is not promised that its deletions wait for another approver (issue 43)', () => {
  const lines = pendingLines(
    pendingEntries('goal-1', {
      awaitingReview: false,
      pendingApprovals: [
        approval('ignored', {
          toolName: 'files__delete_tree',
          input: { path: 'build' },
          summary: 'files__delete_tree: build',
          reversibility: 'mutating',
        }),
      ],
    }),
  );
  assert.equal(
    lines.at(-1),
    '    # approving lets this call do all it does: files__delete_tree is not a tool whose changes keel sees before they happen, so none of them waits for another approver',
  );
  const [entry] = pendingEntries('goal-1', {
    awaitingReview: false,
    pendingApprovals: [approval('x', { toolName: 'files__delete_tree' })],
  });
  assert.equal(entry?.toolName, 'files__delete_tree', '--json names the tool');
});
