import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  childCallLines,
  childrenProgress,
  runningChildLines,
  type ChildProgress,
  type WatchChildrenView,
} from '../../src/cli/watch-children';

/** `keel watch ROOT`'s lines for delegated children (issue 47); the renderer is pure. */

const ROOT = 'goal-1';

const children: WatchChildrenView = {
  children: [
    { workflowId: `${ROOT}-delegate-1`, task: 'CHILD-ONE: list\nthe workspace', workspace: 'read-only' },
    { workflowId: `${ROOT}-delegate-2`, task: `CHILD-TWO: ${'long '.repeat(40)}`, workspace: 'shared' },
  ],
};

const thinking: ChildProgress = { status: 'running', phase: 'thinking', modelTurns: 2, toolCalls: 3 };

test('each running child: its id past the root, its workspace, its own progress and its task', () => {
  const lines = runningChildLines(children, ROOT, { [`${ROOT}-delegate-1`]: thinking });
  assert.equal(
    lines[0],
    'child delegate-1 (read-only): running · thinking · turns 2 · tool calls 3 — CHILD-ONE: list the workspace',
  );
  // A child that did not answer is still listed, without progress.
  assert.match(lines[1] ?? '', /^child delegate-2 \(shared\): no answer — CHILD-TWO: long long /);
  assert.ok((lines[1] ?? '').endsWith('…'), 'a long task is cut');
  assert.ok((lines[1] ?? '').length < 160, lines[1]);
  assert.equal(lines.length, 2);
});

test('without progress asked, the children are listed without it; none running, no lines', () => {
  assert.deepEqual(
    runningChildLines(children, ROOT).at(0),
    'child delegate-1 (read-only) — CHILD-ONE: list the workspace',
  );
  assert.deepEqual(runningChildLines({}, ROOT, {}), []);
  assert.deepEqual(childCallLines({}, ROOT), []);
});

test("a child's task cannot hide text from the terminal", () => {
  const [line] = runningChildLines(
    { children: [{ workflowId: `${ROOT}-delegate-1`, task: 'ok\u001b[2Jgone', workspace: 'shared' }] },
    ROOT,
  );
  assert.ok(!line?.includes('\u001b'), line);
});

test("the tree's waiting calls, each with the command that decides it from the root", () => {
  const view: WatchChildrenView = {
    childApprovals: [
      {
        workflowId: `${ROOT}-delegate-1`,
        callId: 'call-2',
        qualifiedId: 'delegate-1/call-2',
        toolName: 'run_command',
        summary: 'run_command: echo child >> effects.txt',
        reversibility: 'irreversible',
        requestedAt: '2030-01-01T00:00:00.000Z',
        deadline: '2030-01-01T00:10:00.000Z',
      },
    ],
  };
  assert.deepEqual(childCallLines(view, ROOT), [
    'waiting in child goals (1):',
    '  ! delegate-1/call-2: run_command: echo child >> effects.txt (irreversible) until 2030-01-01T00:10:00.000Z',
    `    keel approve ${ROOT} delegate-1/call-2 [--rule 'PATTERN']   |   keel deny ${ROOT} delegate-1/call-2 [--forbid 'PATTERN']`,
  ]);
  const timed = childCallLines(view, ROOT, new Date('2030-01-01T00:05:00.000Z'));
  assert.match(timed[1] ?? '', /until 2030-01-01T00:10:00\.000Z \(5m left\)$/);
});

test('children are asked at once; one that fails or never answers is left out, within the timeout', async () => {
  const asked: string[] = [];
  const answers = new Map<string, (progress: ChildProgress) => void>();
  const gathering = childrenProgress(
    ['a', 'b', 'silent', 'broken'],
    (workflowId) => {
      asked.push(workflowId);
      if (workflowId === 'broken') return Promise.reject(new Error('no worker'));
      return new Promise((resolve) => answers.set(workflowId, resolve));
    },
    50,
  );
  // Every child was asked before any answered.
  assert.deepEqual(asked, ['a', 'b', 'silent', 'broken']);
  answers.get('b')?.(thinking);
  answers.get('a')?.({ ...thinking, phase: 'awaiting-approval' });
  const started = Date.now();
  const progress = await gathering;
  assert.ok(Date.now() - started < 5_000, 'the silent child does not hold the frame');
  assert.deepEqual(progress, { a: { ...thinking, phase: 'awaiting-approval' }, b: thinking });
});
