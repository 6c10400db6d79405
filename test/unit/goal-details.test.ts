import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  approveCommands,
  inlineCode,
  renderGoalDetails,
  type GoalDetailsInput,
} from '../../src/workflows/goal/views/details';
import { emptyCounters, emptyUsage } from '../../src/workflows/goal/lifecycle/state';
import { callText } from '../../src/workflows/tools/call-text';
import { shorten } from '../../src/workflows/tools/suggest-call';
import type { PendingApprovalView } from '../../src/workflows/goal/messages';

/** A pending run_command call; its whole text is rendered from the input, as goal-view does. */
function approval(overrides: Partial<PendingApprovalView> = {}): PendingApprovalView {
  const input = overrides.input ?? { command: 'rm -rf build' };
  return {
    callId: 'toolu_01',
    toolName: 'run_command',
    summary: 'run_command: rm -rf build',
    call: callText(input),
    reversibility: 'irreversible',
    input,
    requestedAt: '2030-01-01T00:00:00.000Z',
    deadline: '2030-01-02T00:00:00.000Z',
    ...overrides,
  };
}

function input(overrides: Partial<GoalDetailsInput> = {}): GoalDetailsInput {
  return {
    workflowId: 'goal-1',
    status: 'running',
    phase: 'thinking',
    goal: 'Tidy the build directory',
    task: { index: 0, text: 'Tidy the build directory' },
    counters: emptyCounters(),
    usage: emptyUsage(),
    startedAtMs: Date.parse('2030-01-01T00:00:00.000Z'),
    writtenAtMs: Date.parse('2030-01-01T00:00:00.000Z'),
    pendingApprovals: [],
    ...overrides,
  };
}

/** The lines of the section that starts with the given heading, up to the next blank line. */
function section(markdown: string, headingStart: string): string[] {
  const blocks = markdown.split('\n\n');
  const block = blocks.find((candidate) => candidate.startsWith(headingStart));
  assert.ok(block, `a section starting with ${headingStart} in:\n${markdown}`);
  return block.split('\n');
}

test('the heading names status and phase, and the goal', () => {
  const markdown = renderGoalDetails(input({ phase: 'awaiting-approval' }));
  const [first, second] = markdown.split('\n');
  assert.equal(first, '### Goal running · awaiting-approval  ');
  assert.equal(second, '**Goal:** Tidy the build directory');
});

test('a follow-up task is named; the first task (the goal itself) is not repeated', () => {
  assert.doesNotMatch(renderGoalDetails(input()), /\*\*Task/);
  const markdown = renderGoalDetails(input({ task: { index: 2, text: 'now also\nclean the cache' } }));
  assert.match(markdown, /\*\*Task 3:\*\* now also clean the cache/);
});

test('long goals are cut to one short line', () => {
  const markdown = renderGoalDetails(input({ goal: `${'word '.repeat(100)}\nsecond line` }));
  const goalLine = markdown.split('\n').find((line) => line.startsWith('**Goal:**')) ?? '';
  assert.ok(goalLine.length < 200, goalLine);
  assert.ok(goalLine.endsWith('…'));
});

test('counters: turns, tool calls by reversibility, approvals, tokens and cost', () => {
  const counters = emptyCounters();
  counters.modelTurns = 7;
  counters.toolCalls = 6;
  counters.toolCallsByReversibility = { 'read-only': 3, mutating: 2, irreversible: 1 };
  counters.approvalsRequested = 2;
  counters.approvalsGranted = 1;
  counters.approvalsDenied = 1;
  const markdown = renderGoalDetails(
    input({
      counters,
      usage: { inputTokens: 12_345, outputTokens: 678, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 },
      writtenAtMs: Date.parse('2030-01-01T00:03:30.000Z'),
      usdEstimate: 0.4213,
    }),
  );
  assert.deepEqual(section(markdown, '#### Progress'), [
    '#### Progress',
    '- Started 2030-01-01 00:00:00 UTC; 3m 30s in as of 2030-01-01 00:03:30 UTC · model turns 7',
    '- Tool calls 6: read-only 3, mutating 2, irreversible 1',
    '- Approvals: 2 requested, 1 granted, 1 denied, 0 timed out',
    '- Tokens: 12,345 in, 678 out · ~0.42 USD',
  ]);
});

test('time is a start and a duration as of the writing, never a clock that goes stale', () => {
  const startedAtMs = Date.parse('2030-01-01T00:00:00.000Z');
  const running = renderGoalDetails(input({ startedAtMs, writtenAtMs: startedAtMs + 2_000 }));
  assert.doesNotMatch(running, /Elapsed/);
  assert.match(running, /^- Started 2030-01-01 00:00:00 UTC; 2s in as of 2030-01-01 00:00:02 UTC · /m);
  const ended = renderGoalDetails(
    input({ status: 'failed', phase: 'done', startedAtMs, writtenAtMs: startedAtMs + 125_000 }),
  );
  assert.match(ended, /^- Started 2030-01-01 00:00:00 UTC; ended 2030-01-01 00:02:05 UTC, after 2m 5s · /m);
});

test('amounts in USD carry no dollar sign (a pair of them renders as math in the Web UI)', () => {
  const markdown = renderGoalDetails(
    input({ usdEstimate: 0.0024, budget: [{ dimension: 'usd', spent: 0.0024, limit: 0.01 }] }),
  );
  assert.doesNotMatch(markdown, /\$/);
  assert.match(markdown, /^- usd: 23% \(0\.0024 USD of 0\.01 USD\)$/m);
  assert.match(markdown, /~0\.0024 USD$/m);
});

test('cache tokens and unknown outcomes show only when there are some', () => {
  const counters = emptyCounters();
  counters.unknownOutcomes = 1;
  const markdown = renderGoalDetails(
    input({
      counters,
      usage: { inputTokens: 1, outputTokens: 2, cacheCreationInputTokens: 300, cacheReadInputTokens: 4000 },
    }),
  );
  assert.match(
    markdown,
    /- Tokens: 4,301 in \(93% read from the cache: 4,000 read, 300 written, 1 uncached\), 2 out$/m,
  );
  assert.match(markdown, /- Unknown outcomes: 1/);
  assert.doesNotMatch(renderGoalDetails(input()), /cache|Unknown outcomes|~/);
});

test('budget use is shown as percentages in each dimension’s unit', () => {
  const markdown = renderGoalDetails(
    input({
      budget: [
        { dimension: 'tokens', spent: 14_000, limit: 20_000 },
        { dimension: 'usd', spent: 0.5, limit: 2 },
        { dimension: 'wall-time', spent: 90_000, limit: 600_000 },
        { dimension: 'tool-calls', spent: 10, limit: 10 },
      ],
    }),
  );
  assert.deepEqual(section(markdown, '#### Budget'), [
    '#### Budget',
    '- tokens: 70% (14,000 of 20,000)',
    '- usd: 25% (0.50 USD of 2.00 USD)',
    '- wall-time: 15% (1m 30s of 10m)',
    '- tool-calls: 100% (10 of 10)',
  ]);
  assert.doesNotMatch(renderGoalDetails(input({ budget: [] })), /Budget/);
});

test('the plan lists steps with status markers', () => {
  const markdown = renderGoalDetails(
    input({
      plan: {
        attempt: 2,
        strategy: 'explore-first',
        steps: [
          { index: 0, toolName: 'list_dir', rationale: 'see what is there', status: 'completed' },
          { index: 1, toolName: 'run_command', rationale: 'build', status: 'failed' },
          { index: 2, toolName: 'read_file', rationale: 'read the log', status: 'active' },
          { index: 3, toolName: 'write_file', rationale: 'fix', status: 'pending' },
          { index: 4, toolName: 'edit_file', rationale: 'tidy', status: 'skipped' },
          { index: 5, toolName: 'search', rationale: 'odd', status: 'paused' },
        ],
      },
    }),
  );
  assert.deepEqual(section(markdown, '#### Plan'), [
    '#### Plan — attempt 2, strategy explore-first',
    '- ✓ 1. `list_dir` — see what is there',
    '- ✗ failed: 2. `run_command` — build',
    '- ▶ 3. `read_file` — read the log',
    '- ○ 4. `write_file` — fix',
    '- ⊘ skipped: 5. `edit_file` — tidy',
    '- [paused] 6. `search` — odd',
  ]);
  assert.doesNotMatch(renderGoalDetails(input()), /Plan/);
});

test('the last checkpoint is shown when there is one', () => {
  const markdown = renderGoalDetails(
    input({ lastCheckpoint: { atToolCall: 12, at: '2030-01-01T00:05:00.000Z' } }),
  );
  assert.match(markdown, /^\*\*Last checkpoint:\*\* after tool call 12, at 2030-01-01T00:05:00\.000Z$/m);
  assert.doesNotMatch(renderGoalDetails(input()), /checkpoint/);
});

test('each pending approval comes with the exact commands that approve it', () => {
  const markdown = renderGoalDetails(
    input({
      phase: 'awaiting-approval',
      pendingApprovals: [
        approval(),
        approval({
          callId: 'toolu_02',
          summary: 'run_command: make deploy',
          input: { command: 'make deploy' },
        }),
      ],
    }),
  );
  const start = markdown.indexOf('#### Pending approvals');
  const end = markdown.indexOf('#### Progress');
  assert.deepEqual(markdown.slice(start, end).split('\n'), [
    '#### Pending approvals (2)',
    '',
    '`run_command: rm -rf build` — irreversible, call `toolu_01`, until 2030-01-02T00:00:00.000Z',
    '',
    '```',
    'rm -rf build',
    '```',
    '',
    '- approve: `keel approve goal-1 toolu_01`',
    `- or: \`temporal workflow signal --workflow-id goal-1 --name approve --input '{"callId":"toolu_01","approver":"YOUR_NAME"}'\``,
    '- or in this Web UI: More Actions › Send a Signal › approve, Data: `{"callId":"toolu_01","approver":"YOUR_NAME"}`',
    "- approve it and later calls like it: `keel approve goal-1 toolu_01 --rule 'PATTERN' --irreversible`",
    '',
    '`run_command: make deploy` — irreversible, call `toolu_02`, until 2030-01-02T00:00:00.000Z',
    '',
    '```',
    'make deploy',
    '```',
    '',
    '- approve: `keel approve goal-1 toolu_02`',
    `- or: \`temporal workflow signal --workflow-id goal-1 --name approve --input '{"callId":"toolu_02","approver":"YOUR_NAME"}'\``,
    '- or in this Web UI: More Actions › Send a Signal › approve, Data: `{"callId":"toolu_02","approver":"YOUR_NAME"}`',
    "- approve it and later calls like it: `keel approve goal-1 toolu_02 --rule 'PATTERN' --irreversible`",
    '',
    '',
  ]);
  // Right after the heading: it is what a reader may have to act on.
  assert.ok(start > 0 && start < end);
  assert.doesNotMatch(renderGoalDetails(input()), /Pending approvals/);
});

test('backticks in a summary cannot break its inline code', () => {
  const markdown = renderGoalDetails(
    input({ pendingApprovals: [approval({ summary: 'run_command: echo `date` ``x``\nrm -rf /tmp/a' })] }),
  );
  assert.match(markdown, /^```run_command: echo `date` ``x`` rm -rf \/tmp\/a``` — irreversible/m);
});

test('the whole call is shown under its cut label: nothing after a long harmless part is hidden', () => {
  const command = `echo "${'harmless '.repeat(10)}"      ; rm -rf src`;
  const summary = `run_command: ${shorten(command, 100)}`; // as run_command labels it
  const markdown = renderGoalDetails(
    input({ pendingApprovals: [approval({ summary, input: { command } })] }),
  );
  const label = markdown.split('\n').find((line) => line.startsWith('`run_command:')) ?? '';
  assert.match(label, /^`run_command: echo "harmless .*…` — irreversible/);
  assert.doesNotMatch(label, /rm -rf/, 'the label alone hides the deletion');
  // The Web UI does not wrap code blocks: past 80 characters a line goes on, marked, below.
  assert.deepEqual(codeBlocks(markdown), [[command.slice(0, 80), `↪ ${command.slice(80)}`]]);
});

test('a 5,000-character call is kept whole, in lines the panel can show', () => {
  const command = `echo ${'a'.repeat(5_000)} ; rm -rf src`;
  const [block = []] = codeBlocks(
    renderGoalDetails(input({ pendingApprovals: [approval({ input: { command } })] })),
  );
  assert.ok(block.every((line) => line.length <= 80));
  assert.ok(block.slice(1).every((line) => line.startsWith('↪ ')));
  assert.equal(block.map((line, index) => (index === 0 ? line : line.slice('↪ '.length))).join(''), command);
});

test('backticks in a call cannot end its code block early', () => {
  const command = 'echo ```\n```\nrm -rf src\n````';
  const markdown = renderGoalDetails(input({ pendingApprovals: [approval({ input: { command } })] }));
  const lines = markdown.split('\n');
  const opening = lines.indexOf('`````');
  assert.ok(opening > 0, markdown);
  // A fenced block ends only at a line of at least as many backticks as opened it (CommonMark 4.5).
  const closing = lines.findIndex((line, index) => index > opening && /^ {0,3}`{5,}\s*$/.test(line));
  assert.deepEqual(lines.slice(opening + 1, closing), ['echo ```', '```', 'rm -rf src', '````']);
  assert.equal(lines[closing], '`````');
});

test('invisible characters in a call and its label are shown, not hidden in the page', () => {
  const markdown = renderGoalDetails(
    input({
      pendingApprovals: [
        approval({ summary: 'run_command: ls \u202E\u200B', input: { command: 'ls \u202Efdp.exe\u200B\r' } }),
      ],
    }),
  );
  assert.match(markdown, /^`run_command: ls \\u\{202E\}\\u\{200B\}` — /m);
  assert.deepEqual(codeBlocks(markdown), [['ls \\u{202E}fdp.exe\\u{200B}\\r']]);
  assert.doesNotMatch(markdown, /[\u202E\u200B\r]/);
});

/** The lines inside each fenced code block of the markdown, as keel writes them. */
function codeBlocks(markdown: string): string[][] {
  const lines = markdown.split('\n');
  const blocks: string[][] = [];
  for (let at = 0; at < lines.length; at++) {
    const fence = lines[at] ?? '';
    if (!/^`{3,}$/.test(fence)) continue;
    const closing = lines.indexOf(fence, at + 1);
    assert.ok(closing > at, `a closed code block in:\n${markdown}`);
    blocks.push(lines.slice(at + 1, closing));
    at = closing;
  }
  return blocks;
}

test('inlineCode picks a delimiter longer than any backtick run inside', () => {
  assert.equal(inlineCode('plain'), '`plain`');
  assert.equal(inlineCode('a `b` c'), '``a `b` c``');
  assert.equal(inlineCode('`edge'), '`` `edge ``');
  assert.equal(inlineCode('x ``` y'), '````x ``` y````');
});

test('approve commands quote ids the shell would split', () => {
  assert.deepEqual(approveCommands("my goal's id", 'toolu_1'), [
    `keel approve 'my goal'\\''s id' toolu_1`,
    `temporal workflow signal --workflow-id 'my goal'\\''s id' --name approve --input '{"callId":"toolu_1","approver":"YOUR_NAME"}'`,
  ]);
  const [, signal] = approveCommands('goal-1', `it's`);
  assert.equal(
    signal,
    `temporal workflow signal --workflow-id goal-1 --name approve --input '{"callId":"it'\\''s","approver":"YOUR_NAME"}'`,
  );
});

test('ignored decisions are counted, with the latest one named', () => {
  assert.doesNotMatch(renderGoalDetails(input()), /Ignored decisions/);
  const counters = { ...emptyCounters(), approvalsIgnored: 2 };
  const markdown = renderGoalDetails(
    input({
      counters,
      lastIgnoredDecision: {
        at: '2030-01-01T00:01:00.000Z',
        reason: 'bad-signature',
        message: "signature does not match alice's key for this decision",
        callId: 'toolu_01',
        approver: 'alice',
      },
    }),
  );
  assert.match(
    markdown,
    /^- Ignored decisions: 2, last: bad-signature — signature does not match alice's key for this decision \(call toolu_01, from alice\) at 2030-01-01T00:01:00\.000Z$/m,
  );
});

test('a goal that requires signatures shows only the signing command', () => {
  const markdown = renderGoalDetails(input({ pendingApprovals: [approval()], signedApprovals: true }));
  assert.match(
    markdown,
    /^- approve: `keel approve goal-1 toolu_01 --approver YOUR_NAME --sign-key YOUR_KEY_FILE`$/m,
  );
  assert.doesNotMatch(markdown, /temporal workflow signal/);
});

test('a stopped goal shows its closing report first, in the model’s own words and nothing hidden', () => {
  const markdown = renderGoalDetails(
    input({
      status: 'stuck',
      phase: 'done',
      endReason: 'stopped by a guard: loop: read_file: a.txt made 5 times',
      closingReport: 'Done: read a.txt.\n```\nLeft: find b.txt\u202E.',
    }),
  );
  const lines = section(markdown, '#### Closing report');
  assert.ok(lines.length > 0, markdown);
  assert.ok(
    markdown.indexOf('#### Closing report') < markdown.indexOf('#### Progress'),
    'before the counters',
  );
  assert.ok(lines.includes('**Stopped:** stopped by a guard: loop: read_file: a.txt made 5 times'));
  const block = codeBlocks(markdown)[0] ?? [];
  assert.deepEqual(block, ['Done: read a.txt.', '```', 'Left: find b.txt\\u{202E}.']);
  assert.doesNotMatch(renderGoalDetails(input()), /Closing report/, 'none while running');
});

test('the rules in force are listed with their maker and source, and calls they decided are counted', () => {
  const markdown = renderGoalDetails(
    input({
      counters: { ...emptyCounters(), approvalsByRule: 39, refusalsByRule: 2 },
      rules: [
        { id: 'rule-1', text: 'allow run_command: npm test*', by: 'dana', source: 'decision' },
        { id: 'rule-2', text: 'forbid run_command: git push*', by: 'worker policy', source: 'worker-policy' },
      ],
    }),
  );
  const start = markdown.indexOf('#### Approval rules in force');
  assert.deepEqual(markdown.slice(start).split('\n').slice(0, 3), [
    '#### Approval rules in force (2)',
    '- `rule-1` `allow run_command: npm test*` by `dana` (decision)',
    '- `rule-2` `forbid run_command: git push*` by `worker policy` (worker-policy)',
  ]);
  assert.match(markdown, /- Approvals: 0 requested, .*, 39 approved by a rule, 2 refused by a rule/);
  assert.doesNotMatch(
    renderGoalDetails(input()),
    /Approval rules|by a rule/,
    'a goal without rules reads as before',
  );
});
