// Issue 46: `keel watch` and `keel run --wait` (and the demo) say how a goal ended, and its answer, once.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeResult, finalAnswerPreview, followGoal } from '../../src/cli/follow-goal';
import type { GoalHandle } from '../../src/client/goal-client';
import { renderWatchView, type WatchableView } from '../../src/cli/watch-view';
import type { GoalResult } from '../../src/workflows/goal/lifecycle/result';
import { emptyCounters, emptyUsage } from '../../src/workflows/goal/lifecycle/state';

const ANSWER = 'Done. TODO-SUMMARY.md lists the two open TODOs.';

function endedView(overrides: Partial<WatchableView> = {}): WatchableView {
  return {
    goal: 'Tidy the demo project',
    status: 'completed',
    phase: 'done',
    task: { index: 0, text: 'Tidy the demo project' },
    counters: emptyCounters(),
    usage: emptyUsage(),
    pendingApprovals: [],
    latestMessages: ['user: [tool_result] Deleted: build/', `assistant: ${ANSWER}`],
    finalText: ANSWER,
    endReason: 'final answer given',
    continuedAsNew: 0,
    stats: {} as WatchableView['stats'],
    priority: 128,
    awaitingReview: false,
    ...overrides,
  };
}

const result: GoalResult = {
  status: 'completed',
  reason: 'final answer given',
  finalText: ANSWER,
  counters: emptyCounters(),
  usage: emptyUsage(),
  tasks: 1,
  stats: {} as GoalResult['stats'],
};

/** What `keel watch` prints at the end (a log, not a TTY): the last view, then the result. */
function watchEnding(view: WatchableView): string[] {
  return [...renderWatchView(view, { workflowId: 'goal-1', resultFollows: true }), ...describeResult(result)];
}

test('keel watch: the ended view leaves how it ended and the answer to the result printed after it', () => {
  const lines = watchEnding(endedView());
  const mentions = (text: string) => lines.filter((line) => line.includes(text)).length;
  assert.equal(mentions('goal completed'), 1, lines.join('\n'));
  assert.equal(mentions(ANSWER), 1, lines.join('\n'));
  assert.ok(lines.includes(`final answer: ${ANSWER}`), 'the answer itself is said, whole');
  assert.ok(lines.includes('  user: [tool_result] Deleted: build/'), 'the rest of the transcript stays');
});

test('keel watch: a view on its own (no result after it) still shows how the goal ended', () => {
  const lines = renderWatchView(endedView(), { workflowId: 'goal-1' });
  assert.deepEqual(lines.slice(-2), [`final answer: ${ANSWER}`, 'goal completed: final answer given']);
});

test('keel watch: a running goal whose answer a human reviews keeps the answer in view', () => {
  const reviewing = endedView({ status: 'running', phase: 'reviewing', endReason: undefined });
  const lines = renderWatchView(reviewing, { workflowId: 'goal-1', resultFollows: true });
  assert.ok(lines.includes(`final answer: ${ANSWER}`));
  assert.ok(lines.includes(`  assistant: ${ANSWER}`));
});

test('keel run --wait and the demo: the transcript line of the final answer is left to the result', () => {
  assert.equal(finalAnswerPreview(endedView()), `assistant: ${ANSWER}`);
  // No answer yet, or the last line is not the model's: nothing is held back.
  assert.equal(finalAnswerPreview(endedView({ finalText: undefined })), undefined);
  assert.equal(
    finalAnswerPreview(endedView({ latestMessages: ['user: [tool_result] Deleted: build/'] })),
    undefined,
  );
  // A human reviews it, or the goal waits for a follow-up: the answer is news now.
  assert.equal(finalAnswerPreview(endedView({ status: 'running', phase: 'reviewing' })), undefined);
  assert.equal(finalAnswerPreview(endedView({ status: 'running', phase: 'awaiting-follow-up' })), undefined);
});

test('keel run --wait and the demo: followGoal, then the result, say the answer and the ending once', async () => {
  // A goal that has ended: its status query answers, its result is there.
  const handle = {
    workflowId: 'goal-1',
    query: () => Promise.resolve(endedView()),
    describe: () => Promise.resolve({ status: { name: 'COMPLETED' } }),
    result: () => Promise.resolve(result),
  } as unknown as GoalHandle;
  const lines: string[] = [];
  const ended = await followGoal(handle, { print: (line) => lines.push(line), pollMs: 1 });
  lines.push(...describeResult(ended));
  assert.equal(lines.filter((line) => line.includes(ANSWER)).length, 1, lines.join('\n'));
  assert.ok(lines.includes(`final answer: ${ANSWER}`));
  assert.ok(lines.includes('  user: [tool_result] Deleted: build/'));
});
