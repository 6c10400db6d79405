import { test } from 'node:test';
import assert from 'node:assert/strict';
import { modelInput } from '../../src/cli/model-flags';
import { parseGoalInput } from '../../src/workflows/goal/lifecycle/input';

const base = { goal: 'g', workspace: '/w' };

test("keel run's model flags: none says nothing, so the goal's defaults apply", () => {
  assert.deepEqual(modelInput({ cache: true }), {});
});

test('--thinking N gives answers N + 4096 tokens of room, unless --answer-tokens says', () => {
  const thinking = modelInput({ cache: true, thinking: 8000 });
  assert.deepEqual(thinking, { model: { maxTokens: 12_096, thinking: { budgetTokens: 8000 } } });
  const parsed = parseGoalInput({ ...base, ...thinking });
  assert.equal(parsed.ok, true, 'a valid goal: the budget is below maxTokens');
  assert.deepEqual(
    modelInput({ cache: true, thinking: 8000, answerTokens: 20_000 }).model?.maxTokens,
    20_000,
  );
});

test('--no-cache and --cache-ttl become model.cache', () => {
  assert.deepEqual(modelInput({ cache: false }), { model: { cache: { enabled: false } } });
  assert.deepEqual(modelInput({ cache: true, cacheTtl: '1h' }), {
    model: { cache: { enabled: true, ttl: '1h' } },
  });
  assert.deepEqual(modelInput({ cache: true, model: 'claude-opus-4-6', answerTokens: 128_000 }), {
    model: { name: 'claude-opus-4-6', maxTokens: 128_000 },
  });
});
