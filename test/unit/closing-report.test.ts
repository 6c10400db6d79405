import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CLOSING_REPORT_MAX_TOKENS,
  NOT_RUN_AT_STOP,
  closingReportEnding,
  closingReportMaxTokens,
  closingReportMessages,
  closingReportPlan,
  closingReportPrompt,
  closingReportText,
} from '../../src/workflows/goal/model-turn/closing-report';
import { GoalStatus } from '../../src/workflows/goal/lifecycle/state';
import type { TranscriptMessage } from '../../src/workflows/common/transcript';

const model = { name: 'claude-sonnet-4-6', maxTokens: 4096 };
const nothingSpent = { tokens: 0, usd: 0, wallTimeMs: 0, toolCalls: 0 };

test('a guard or a limit asks for a report; a spent budget or a cancelled goal skips it; other endings have none', () => {
  assert.deepEqual(closingReportEnding(GoalStatus.Stuck, false), { kind: 'ask' });
  assert.deepEqual(closingReportEnding(GoalStatus.Limit, false), { kind: 'ask' });
  assert.deepEqual(closingReportEnding(GoalStatus.BudgetExhausted, false), {
    kind: 'skip',
    why: 'the budget is spent',
  });
  assert.deepEqual(closingReportEnding(GoalStatus.Stuck, true), {
    kind: 'skip',
    why: 'the goal was cancelled',
  });
  for (const status of [GoalStatus.Completed, GoalStatus.Failed, GoalStatus.Rejected, GoalStatus.Cancelled])
    assert.equal(closingReportEnding(status, false), undefined, status);
});

test('the report’s room is small, and smaller when the goal or the model allows less', () => {
  assert.equal(closingReportMaxTokens(model), CLOSING_REPORT_MAX_TOKENS);
  assert.equal(closingReportMaxTokens({ ...model, maxTokens: 300 }), 300);
  // claude-3-haiku writes at most 4,096 an answer: thinking's budget plus the room is capped there
  assert.equal(
    closingReportMaxTokens({ name: 'claude-3-haiku', maxTokens: 8000, thinking: { budgetTokens: 3500 } }),
    4096,
  );
  // with thinking the room comes on top of the thinking budget (max_tokens must exceed it)
  assert.equal(
    closingReportMaxTokens({ ...model, maxTokens: 16_000, thinking: { budgetTokens: 2048 } }),
    2048 + CLOSING_REPORT_MAX_TOKENS,
  );
});

test('the budget left must pay for the report, estimated high: every input token uncached, the whole room written', () => {
  const ask = closingReportPlan({ model, requestChars: 4000, spent: nothingSpent });
  assert.deepEqual(ask, {
    kind: 'ask',
    maxTokens: CLOSING_REPORT_MAX_TOKENS,
    // sonnet-4-6: $3 in, $15 out a million
    estimate: { tokens: 1000 + 1024, usd: (1000 * 3 + 1024 * 15) / 1_000_000 },
  });
  const budget = { maxTokens: 10_000, warnAt: [0.7] };
  assert.equal(
    closingReportPlan({ model, requestChars: 4000, budget, spent: { ...nothingSpent, tokens: 7976 } }).kind,
    'ask',
    'exactly enough left',
  );
  const short = closingReportPlan({
    model,
    requestChars: 4000,
    budget,
    spent: { ...nothingSpent, tokens: 7977 },
  });
  assert.deepEqual(short, {
    kind: 'skip',
    why: 'the token budget left (2023) could not pay for it (about 2024)',
  });
  const usd = closingReportPlan({
    model,
    requestChars: 4000,
    budget: { maxUsd: 1, warnAt: [0.7] },
    spent: { ...nothingSpent, usd: 0.99 },
  });
  assert.equal(usd.kind, 'skip');
  assert.match(usd.kind === 'skip' ? usd.why : '', /the cost budget left \(\$0\.0100\) could not pay for it/);
  // An unpriced model costs nothing that keel knows of: only its tokens count.
  assert.equal(
    closingReportPlan({
      model: { name: 'someone-elses-model', maxTokens: 4096 },
      requestChars: 4000,
      budget: { maxUsd: 1, warnAt: [0.7] },
      spent: { ...nothingSpent, usd: 1 },
    }).kind,
    'ask',
  );
});

test('the prompt names the stop and asks what was done and what is left, without tools', () => {
  const prompt = closingReportPrompt('stopped by a guard: loop: read_file: a.txt made 5 times');
  assert.match(prompt, /stopped this goal: stopped by a guard: loop: read_file: a\.txt made 5 times\./);
  assert.match(prompt, /what was done/);
  assert.match(prompt, /what is left to do/);
  assert.match(prompt, /without tool calls/);
});

test('the report’s messages end with the prompt; calls a stop left unanswered are answered as not run', () => {
  const opening: TranscriptMessage = { role: 'user', content: [{ type: 'text', text: 'the goal' }] };
  const asked: TranscriptMessage = {
    role: 'assistant',
    content: [
      { type: 'text', text: 'again' },
      { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'a' } },
      { type: 'tool_use', id: 'call_2', name: 'list_dir', input: { path: '.' } },
    ],
  };
  const transcript = [opening, asked];
  const messages = closingReportMessages(transcript, 'REPORT PLEASE');
  assert.equal(transcript.length, 2, 'the transcript itself is not changed');
  assert.equal(messages[0], opening, 'shared messages stay the same objects');
  assert.equal(messages[1], asked);
  assert.deepEqual(messages[2], {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 'call_1', content: NOT_RUN_AT_STOP, is_error: true },
      { type: 'tool_result', tool_use_id: 'call_2', content: NOT_RUN_AT_STOP, is_error: true },
      { type: 'text', text: 'REPORT PLEASE' },
    ],
  });

  // After tool results, the prompt joins their message (roles alternate).
  const results: TranscriptMessage = {
    role: 'user',
    content: [{ type: 'tool_result', tool_use_id: 'call_1', content: 'missing' }],
  };
  const after = closingReportMessages([opening, asked, results], 'REPORT PLEASE');
  assert.equal(after.length, 3);
  assert.deepEqual(after[2]?.content, [...results.content, { type: 'text', text: 'REPORT PLEASE' }]);

  // A last assistant message without calls (a paused turn) gets a user message after it.
  const paused: TranscriptMessage = {
    role: 'assistant',
    content: [{ type: 'text', text: 'Still looking…' }],
  };
  const afterPause = closingReportMessages([opening, paused], 'REPORT PLEASE');
  assert.deepEqual(afterPause[2], { role: 'user', content: [{ type: 'text', text: 'REPORT PLEASE' }] });
});

test('the report is the answer’s text: tool calls ignored, thinking never shown, a cut report says so', () => {
  assert.equal(
    closingReportText(
      [
        { type: 'thinking', thinking: 'SECRET', signature: 's' },
        { type: 'text', text: 'Done: a. ' },
        { type: 'tool_use', id: 't', name: 'read_file', input: {} },
        { type: 'text', text: 'Left: b.' },
      ],
      'tool_use',
      1024,
    ),
    'Done: a. \nLeft: b.',
  );
  assert.equal(
    closingReportText([{ type: 'tool_use', id: 't', name: 'x', input: {} }], 'tool_use', 1024),
    undefined,
  );
  assert.equal(closingReportText([{ type: 'text', text: '  ' }], 'end_turn', 1024), undefined);
  assert.equal(
    closingReportText([{ type: 'text', text: 'Done: a; left' }], 'max_tokens', 1024),
    'Done: a; left\n[keel: the report reached its limit of 1024 tokens and was cut here.]',
  );
});
