import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cutCallResult, judgeStop, moreRoomThan } from '../../src/workflows/goal/model-turn/stop-reasons';
import type { ContentBlock } from '../../src/workflows/common/transcript';
import { parseGoalInput } from '../../src/workflows/goal/lifecycle/input';

const text: ContentBlock[] = [{ type: 'text', text: 'half an answ' }];
const call: ContentBlock[] = [
  { type: 'text', text: 'writing it' },
  { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: { path: 'a', content: 'half' } },
];

test('every stop reason has its meaning', () => {
  assert.equal(judgeStop('end_turn', text), 'answer');
  assert.equal(judgeStop('tool_use', call), 'answer');
  assert.equal(judgeStop('stop_sequence', text), 'answer');
  assert.equal(judgeStop(null, text), 'answer');
  assert.equal(judgeStop('max_tokens', call), 'cut-call');
  assert.equal(judgeStop('max_tokens', text), 'cut-text');
  assert.equal(judgeStop('model_context_window_exceeded', call), 'cut-call');
  assert.equal(judgeStop('refusal', text), 'refusal');
  assert.equal(judgeStop('pause_turn', text), 'paused');
});

test("a cut call is asked again with the model's whole output room, once there is more", () => {
  assert.equal(moreRoomThan('claude-sonnet-4-5-20250929', 4096), 64_000);
  assert.equal(moreRoomThan('claude-opus-4-6', 64_000), 128_000);
  assert.equal(moreRoomThan('claude-sonnet-4-5', 64_000), undefined);
  assert.equal(moreRoomThan('someone-elses-model', 4096), 8192);
  assert.equal(moreRoomThan('someone-elses-model', 100_000), 128_000);
  assert.match(cutCallResult(4096), /^Not run: .*max_tokens limit \(4096 tokens\)/);
});

test("maxTokens is checked against the model's own output limit, and thinking against maxTokens", () => {
  const base = { goal: 'g', workspace: '/w' };
  assert.equal(parseGoalInput({ ...base, model: { name: 'claude-opus-4-6', maxTokens: 128_000 } }).ok, true);
  assert.equal(parseGoalInput({ ...base, model: { name: 'claude-sonnet-4-6', maxTokens: 64_000 } }).ok, true);
  const tooMuch = parseGoalInput({ ...base, model: { name: 'claude-haiku-4-5', maxTokens: 100_000 } });
  assert.equal(tooMuch.ok, false);
  assert.match(!tooMuch.ok ? tooMuch.message : '', /model\.maxTokens: claude-haiku-4-5 writes at most 64000/);
  const thinking = (model: object) => parseGoalInput({ ...base, model: { maxTokens: 16_000, ...model } });
  assert.equal(thinking({ thinking: { budgetTokens: 8000 } }).ok, true);
  assert.match(JSON.stringify(thinking({ thinking: { budgetTokens: 512 } })), /at least 1024/);
  assert.match(JSON.stringify(thinking({ thinking: { budgetTokens: 16_000 } })), /must be below maxTokens/);
  assert.match(
    JSON.stringify(thinking({ thinking: { budgetTokens: 2000 }, temperature: 0.2 })),
    /leave temperature unset/,
  );
  const cache = parseGoalInput({ ...base, model: { cache: { ttl: '1h' } } });
  assert.deepEqual(cache.ok ? cache.config.model.cache : undefined, { enabled: true, ttl: '1h' });
  assert.equal(parseGoalInput({ ...base, model: { cache: { ttl: '2h' } } }).ok, false);
});
