import { test } from 'node:test';
import assert from 'node:assert/strict';
import { modelInput } from '../../src/cli/model-flags';

test('keel run --context-window becomes model.contextWindowTokens; without it, nothing is said', () => {
  assert.deepEqual(modelInput({ cache: true, contextWindow: 128_000 }), {
    model: { contextWindowTokens: 128_000 },
  });
  assert.deepEqual(modelInput({ cache: true }), {});
});
