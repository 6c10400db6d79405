import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/common';
import { RetryState, TimeoutType } from '@temporalio/common';
import {
  afterWindow,
  callWindow,
  costByModel,
  initialModelChoice,
  modelChain,
  modelForTurn,
  modelsLine,
  recordTurnModel,
  turnModelSettings,
  type ModelChoiceState,
} from '../../src/workflows/goal/model-turn/fallback';
import { modelTroubleAtDeadline } from '../../src/workflows/goal/lifecycle/failures';
import { toModelFailure } from '../../src/activities/model/model-errors';
import { estimateUsd } from '../../src/workflows/principles/cost';
import { supportsExtendedThinking } from '../../src/workflows/common/model-limits';
import type { TranscriptMessage } from '../../src/workflows/common/transcript';
import Anthropic from '@anthropic-ai/sdk';

const settings = {
  name: 'claude-sonnet-4-6',
  fallbacks: ['claude-haiku-4-5', 'claude-3-haiku'],
  fallbackAfterMs: 120_000,
  fallbackCooldownMs: 600_000,
};
const at = (choice: Partial<ModelChoiceState>): ModelChoiceState => ({ ...initialModelChoice(0), ...choice });

test('the chain is the primary, then each fallback once', () => {
  assert.deepEqual(modelChain({ name: 'a', fallbacks: ['b', 'a', 'c', 'b'] }), ['a', 'b', 'c']);
  assert.deepEqual(modelChain({ name: 'a' }), ['a']);
});

test('overload or rate limiting at the end of a window hands the turn to the next model', () => {
  const primary = at({});
  const first = afterWindow({ choice: primary, settings, nowMs: 1000, trouble: 'overloaded' });
  assert.equal(first.switched, true);
  assert.equal(first.choice.active, 1);
  assert.equal(first.choice.since, 1000);
  assert.equal(first.choice.primaryLeftAt, 1000, 'the cool-down counts from leaving the primary');
  const second = afterWindow({ choice: first.choice, settings, nowMs: 5000, trouble: 'rate-limited' });
  assert.equal(second.choice.active, 2);
  assert.equal(second.choice.primaryLeftAt, 1000, 'leaving a fallback does not restart the cool-down');
});

test('other trouble stays with the same model: another model behind the same API fares no better', () => {
  const result = afterWindow({ choice: at({}), settings, nowMs: 1000, trouble: 'other' });
  assert.equal(result.switched, false);
  assert.equal(result.choice.active, 0);
});

test('the last fallback keeps the turn until the cool-down ends, then the primary is asked again', () => {
  const last = at({ active: 2, primaryLeftAt: 0, since: 240_000 });
  const early = afterWindow({ choice: last, settings, nowMs: 300_000, trouble: 'overloaded' });
  assert.equal(early.switched, false);
  const later = afterWindow({ choice: last, settings, nowMs: 600_000, trouble: 'overloaded' });
  assert.equal(later.choice.active, 0);
  const window = callWindow({ choice: last, settings, nowMs: 240_000, patienceLeftMs: 3_600_000 });
  assert.deepEqual(window, { windowMs: 360_000, switches: true }, 'until the cool-down ends');
});

test('turns go back to the primary once its cool-down is over, not before', () => {
  const onFallback = at({ active: 1, primaryLeftAt: 1000, since: 1000 });
  assert.equal(modelForTurn(onFallback, settings, 600_999).returned, false);
  const back = modelForTurn(onFallback, settings, 601_000);
  assert.equal(back.returned, true);
  assert.equal(back.choice.active, 0);
  assert.equal(back.choice.since, 601_000);
});

test('a chain that shrank (a carried state) starts over at the primary without saying it returned', () => {
  const stale = modelForTurn(at({ active: 2, primaryLeftAt: 0 }), { name: 'a', fallbacks: ['b'] }, 1);
  assert.equal(stale.choice.active, 0);
  assert.equal(stale.returned, false);
});

test("a call's window: fallbackAfterMs while another model remains, the patience left otherwise", () => {
  assert.deepEqual(callWindow({ choice: at({}), settings, nowMs: 0, patienceLeftMs: 6 * 3_600_000 }), {
    windowMs: 120_000,
    switches: true,
  });
  assert.deepEqual(callWindow({ choice: at({}), settings, nowMs: 0, patienceLeftMs: 60_000 }), {
    windowMs: 60_000,
    switches: false,
  });
  assert.deepEqual(callWindow({ choice: at({}), settings: { name: 'a' }, nowMs: 0, patienceLeftMs: 5 }), {
    windowMs: 5,
    switches: false,
  });
});

test('turns by model are kept as runs, bounded', () => {
  let choice = at({ active: 1 });
  choice = recordTurnModel(choice, 1, 'claude-haiku-4-5');
  choice = recordTurnModel(choice, 2, 'claude-haiku-4-5');
  choice = recordTurnModel({ ...choice, active: 0 }, 3, 'claude-sonnet-4-6');
  assert.deepEqual(choice.runs, [
    { model: 'claude-haiku-4-5', fallback: true, firstTurn: 1, lastTurn: 2 },
    { model: 'claude-sonnet-4-6', fallback: false, firstTurn: 3, lastTurn: 3 },
  ]);
  assert.equal(
    modelsLine({
      active: 'claude-sonnet-4-6',
      fallback: false,
      since: 0,
      runs: choice.runs,
      runsDropped: 0,
      usdByModel: {},
    }),
    'Models: claude-haiku-4-5 (fallback) turns 1–2; claude-sonnet-4-6 turn 3; now claude-sonnet-4-6',
  );
  for (let turn = 4; turn < 120; turn++) choice = recordTurnModel(choice, turn, turn % 2 ? 'a' : 'b');
  assert.equal(choice.runs.length, 50);
  assert.equal(choice.runsDropped, 118 - 50);
});

const toolLoop: TranscriptMessage[] = [
  { role: 'user', content: [{ type: 'text', text: 'go' }] },
  { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'list_dir', input: {} }] },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'a.txt' }] },
];
const thinking = { name: 'claude-sonnet-4-6', maxTokens: 64_000, thinking: { budgetTokens: 16_000 } };

test("a fallback's max_tokens and thinking budget stay within its output limit", () => {
  const sent = turnModelSettings(thinking, {
    model: 'claude-opus-4-1',
    lastAnswerModel: undefined,
    transcript: [],
  });
  assert.equal(sent.name, 'claude-opus-4-1');
  assert.equal(sent.maxTokens, 32_000);
  assert.deepEqual(sent.thinking, { budgetTokens: 16_000 });
  const small = turnModelSettings(thinking, {
    model: 'claude-3-haiku',
    lastAnswerModel: undefined,
    transcript: [],
  });
  assert.equal(small.maxTokens, 4096);
  assert.equal(small.thinking, undefined, 'Claude 3 Haiku has no extended thinking');
});

test('a model without extended thinking is sent none', () => {
  assert.equal(supportsExtendedThinking('claude-3-5-haiku-20241022'), false);
  assert.equal(supportsExtendedThinking('claude-3-7-sonnet-20250219'), true);
  assert.equal(supportsExtendedThinking('claude-haiku-4-5'), true);
  const sent = turnModelSettings(thinking, {
    model: 'claude-3-5-haiku',
    lastAnswerModel: undefined,
    transcript: [],
  });
  assert.equal(sent.thinking, undefined);
});

test('within a tool-use loop answered by another model, the turn goes without thinking', () => {
  const back = turnModelSettings(thinking, {
    model: 'claude-sonnet-4-6',
    lastAnswerModel: 'claude-3-haiku',
    transcript: toolLoop,
  });
  assert.equal(back.thinking, undefined, 'the last assistant turn has no block this model reads');
  const outsideLoop = turnModelSettings(thinking, {
    model: 'claude-sonnet-4-6',
    lastAnswerModel: 'claude-3-haiku',
    transcript: toolLoop.slice(0, 1),
  });
  assert.deepEqual(outsideLoop.thinking, { budgetTokens: 16_000 });
  const same = turnModelSettings(thinking, {
    model: 'claude-sonnet-4-6',
    lastAnswerModel: 'claude-sonnet-4-6',
    transcript: toolLoop,
  });
  assert.equal(same, thinking, 'the primary after itself: the settings as they are');
});

/** A schedule-to-close timeout between attempts, the activity's last error in its heartbeat. */
function windowEnded(lastError: string): ActivityFailure {
  const timeout = new TimeoutFailure('timed out', { lastError }, TimeoutType.SCHEDULE_TO_CLOSE);
  return new ActivityFailure('activity timed out', 'callModel', '1', RetryState.TIMEOUT, 'me', timeout);
}

function apiError(status: number, type: string): string {
  const headers = new Headers();
  const error = Anthropic.APIError.generate(
    status,
    { type: 'error', error: { type, message: 'x' } },
    'x',
    headers,
  );
  return toModelFailure(error).message;
}

test("the trouble at a window's end is read from the activity's own failure messages", () => {
  assert.equal(modelTroubleAtDeadline(windowEnded(apiError(529, 'overloaded_error'))), 'overloaded');
  assert.equal(modelTroubleAtDeadline(windowEnded(apiError(429, 'rate_limit_error'))), 'rate-limited');
  assert.equal(modelTroubleAtDeadline(windowEnded(apiError(503, 'api_error'))), 'other');
  const cause = ApplicationFailure.create({ message: 'x', type: 'ModelOverloaded' });
  const late = new ActivityFailure('failed', 'callModel', '1', RetryState.TIMEOUT, 'me', cause);
  assert.equal(modelTroubleAtDeadline(late), 'overloaded', 'a retry that would come after the window');
  const refused = ApplicationFailure.nonRetryable('bad', 'ModelBadRequest');
  const plain = new ActivityFailure(
    'failed',
    'callModel',
    '1',
    RetryState.NON_RETRYABLE_FAILURE,
    'me',
    refused,
  );
  assert.equal(modelTroubleAtDeadline(plain), undefined, 'not a window that ended');
});

test('each model is priced at its own rates; tokens no model was recorded for at the primary', () => {
  const usage = (input: number, output: number) => ({
    inputTokens: input,
    outputTokens: output,
    cacheCreationInputTokens: 0,
    cacheReadInputTokens: 0,
  });
  const choice = at({ usage: { 'claude-3-haiku': usage(1_000_000, 0) } });
  const cost = costByModel({ choice, total: usage(2_000_000, 0), primary: 'claude-sonnet-4-6' });
  const haiku = estimateUsd({ usage: usage(1_000_000, 0), model: 'claude-3-haiku' }).usd;
  const sonnet = estimateUsd({ usage: usage(1_000_000, 0), model: 'claude-sonnet-4-6' }).usd;
  assert.equal(haiku, 0.25);
  assert.equal(cost.usd, haiku + sonnet);
  assert.deepEqual(cost.byModel, { 'claude-3-haiku': 0.25 });
  assert.equal(cost.priced, true);
});
