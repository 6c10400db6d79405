import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderWatchView, type WatchableView } from '../../src/cli/watch-view';
import { emptyCounters, emptyUsage } from '../../src/workflows/goal/lifecycle/state';

function view(overrides: Partial<WatchableView> = {}): WatchableView {
  return {
    goal: 'Tidy the build directory',
    status: 'running',
    phase: 'thinking',
    task: { index: 0, text: 'Tidy the build directory' },
    counters: emptyCounters(),
    usage: emptyUsage(),
    pendingApprovals: [],
    latestMessages: [],
    continuedAsNew: 0,
    stats: {
      hypothesesGiven: 0,
      hypothesisMismatches: 0,
      checkpoints: 0,
      checkpointsAddressed: 0,
      explorationRatio: null,
      usdEstimate: 0,
      usdPriced: true,
      cacheHitRate: 0,
      elapsedMs: 0,
      structuredCalls: 0,
      rawFallbackRate: 0,
      assessments: 0,
      consolidations: 0,
    },
    priority: 128,
    awaitingReview: false,
    ...overrides,
  };
}

test('progress and counters', () => {
  const counters = emptyCounters();
  counters.modelTurns = 3;
  counters.toolCalls = 4;
  counters.toolCallsByReversibility = { 'read-only': 2, mutating: 1, irreversible: 1 };
  counters.approvalsRequested = 1;
  counters.approvalsGranted = 1;
  const lines = renderWatchView(
    view({
      phase: 'running-tools',
      counters,
      usage: { inputTokens: 12_000, outputTokens: 345, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
    }),
    { workflowId: 'goal-1' },
  );
  assert.deepEqual(lines, [
    'keel watch goal-1',
    'goal: Tidy the build directory',
    'running · running-tools · turns 3 · tool calls 4 (read-only 2, mutating 1, irreversible 1)',
    'approvals: 1 requested, 1 granted, 0 denied, 0 timed out · tokens 12,000 in, 345 out',
  ]);
});

test('a follow-up task and the recent messages, each on one line', () => {
  const lines = renderWatchView(
    view({
      task: { index: 1, text: 'also clean\nthe cache' },
      latestMessages: ['user: hello', 'assistant: tool_use list_dir {"path":"."}'],
    }),
    { workflowId: 'goal-1' },
  );
  assert.ok(lines.includes('task 2: also clean the cache'));
  const recent = lines.indexOf('recent:');
  assert.deepEqual(lines.slice(recent + 1, recent + 3), [
    '  user: hello',
    '  assistant: tool_use list_dir {"path":"."}',
  ]);
});

test('pending approvals come with the approve and deny commands', () => {
  const pendingApprovals = [
    {
      callId: 'toolu_01',
      toolName: 'run_command',
      summary: 'run_command: rm -rf build',
      call: 'rm -rf build',
      reversibility: 'irreversible' as const,
      input: { command: 'rm -rf build' },
      requestedAt: '2030-01-01T00:00:00.000Z',
      deadline: '2030-01-02T00:00:00.000Z',
    },
  ];
  const lines = renderWatchView(view({ phase: 'awaiting-approval', pendingApprovals }), {
    workflowId: 'goal-1',
  });
  const start = lines.indexOf('pending approvals (1):');
  assert.ok(start > 0, lines.join('\n'));
  assert.deepEqual(lines.slice(start + 1), [
    '  ! run_command: rm -rf build (irreversible) until 2030-01-02T00:00:00.000Z',
    '      rm -rf build',
    "    keel approve goal-1 toolu_01 [--rule 'PATTERN']   |   keel deny goal-1 toolu_01 [--forbid 'PATTERN']",
  ]);
  const timed = renderWatchView(view({ pendingApprovals }), {
    workflowId: 'goal-1',
    now: new Date('2030-01-01T22:30:00.000Z'),
  });
  assert.ok(
    timed.includes(
      '  ! run_command: rm -rf build (irreversible) until 2030-01-02T00:00:00.000Z (1h 30m left)',
    ),
  );
  const late = renderWatchView(view({ pendingApprovals }), {
    workflowId: 'goal-1',
    now: new Date('2031-01-01'),
  });
  assert.ok(late.some((line) => line.endsWith('(due now)')));
});

test('a pending call is shown whole under its cut label, never only the label', () => {
  const command = `echo "${'harmless '.repeat(10)}"      ; rm -rf src`;
  const input = { command };
  const pendingApprovals = [
    {
      callId: 'toolu_01',
      toolName: 'run_command',
      summary: `run_command: ${command.slice(0, 99)}…`,
      call: command,
      reversibility: 'irreversible' as const,
      input,
      requestedAt: '2030-01-01T00:00:00.000Z',
      deadline: '2030-01-02T00:00:00.000Z',
    },
  ];
  const lines = renderWatchView(view({ pendingApprovals }), { workflowId: 'goal-1' });
  const label = lines.findIndex((line) => line.startsWith('  ! run_command: echo'));
  assert.doesNotMatch(lines[label] ?? '', /rm -rf/);
  assert.equal(lines[label + 1], `      ${command}`);
});

test('the plan, when the view carries one', () => {
  const lines = renderWatchView(
    view({
      plan: {
        goalId: 'goal-1',
        status: 'active',
        metaStrategy: 'reason-first',
        attempt: 1,
        strategy: 'external',
        steps: [
          {
            index: 0,
            toolName: 'list_dir',
            toolInput: {},
            expectedEffects: [],
            rationale: 'look',
            status: 'completed',
          },
          {
            index: 1,
            toolName: 'run_command',
            toolInput: {},
            expectedEffects: [],
            rationale: 'build',
            status: 'active',
          },
        ],
      },
    }),
    { workflowId: 'goal-1' },
  );
  const start = lines.indexOf('plan: attempt 1, strategy external');
  assert.ok(start > 0);
  assert.deepEqual(lines.slice(start + 1, start + 3), [
    '  [x] 1. list_dir — look',
    '  [>] 2. run_command — build',
  ]);
  assert.ok(!renderWatchView(view(), { workflowId: 'goal-1' }).some((line) => line.startsWith('plan:')));
});

test('an ended goal shows its final answer and how it ended', () => {
  const lines = renderWatchView(
    view({ status: 'completed', phase: 'done', finalText: 'All tidy.', endReason: 'final answer given' }),
    { workflowId: 'goal-1' },
  );
  assert.deepEqual(lines.slice(-2), ['final answer: All tidy.', 'goal completed: final answer given']);
  assert.ok(
    !renderWatchView(view(), { workflowId: 'goal-1' }).some((line) => line.startsWith('goal running')),
  );
});

test('a goal a guard or a limit stopped shows its closing report, not a final answer', () => {
  for (const status of ['stuck', 'limit'] as const) {
    const lines = renderWatchView(
      view({ status, phase: 'done', finalText: 'Done: a. Left: b.', endReason: 'why it stopped' }),
      { workflowId: 'goal-1' },
    );
    assert.deepEqual(lines.slice(-2), [
      'closing report: Done: a. Left: b.',
      `goal ${status}: why it stopped`,
    ]);
  }
  const rejected = renderWatchView(
    view({ status: 'rejected', phase: 'done', finalText: 'my output', endReason: 'rejected' }),
    { workflowId: 'goal-1' },
  );
  assert.ok(rejected.includes('final answer: my output'), 'a rejected answer is still an answer');
});

test('while the model thinks, the answer it is writing shows: tokens so far, the block, its latest text', () => {
  const forming = {
    kind: 'model-stream' as const,
    outputTokens: 321,
    latest: 'I will write the\nconfig file now',
    writing: 'tool' as const,
    tool: 'write_file',
  };
  const thinking = renderWatchView(view({ phase: 'thinking' }), { workflowId: 'g', forming });
  assert.ok(
    thinking.includes('model writing: ~321 tokens, tool write_file: …I will write the config file now'),
  );
  const reasoning = renderWatchView(view({ phase: 'thinking' }), {
    workflowId: 'g',
    forming: { ...forming, writing: 'thinking', latest: 'hmm' },
  });
  assert.ok(reasoning.some((line) => line.includes('thinking (not its answer): …hmm')));
  // Once the turn is over the line goes, even if a stale heartbeat is passed in.
  const acting = renderWatchView(view({ phase: 'running-tools' }), { workflowId: 'g', forming });
  assert.ok(!acting.some((line) => line.startsWith('model writing')));
});
