// Issue 46: the end-of-goal line (demo, `keel run --wait`, `keel watch`) counts tokens as `keel status` does.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeResult } from '../../src/cli/follow-goal';
import type { GoalResult } from '../../src/workflows/goal/lifecycle/result';
import { emptyCounters } from '../../src/workflows/goal/lifecycle/state';
import { tokenUsageText } from '../../src/workflows/goal/views/details';

function result(usage: GoalResult['usage']): GoalResult {
  return {
    status: 'completed',
    counters: emptyCounters(),
    usage,
    tasks: 1,
    stats: {} as GoalResult['stats'],
  };
}

const tokenLine = (lines: string[]) => lines.find((line) => line.startsWith('tokens'));

test('input counts the cache: uncached, read and written, with the share read from the cache', () => {
  const usage = {
    inputTokens: 0,
    outputTokens: 292,
    cacheReadInputTokens: 7_661,
    cacheCreationInputTokens: 2_161,
  };
  assert.equal(
    tokenLine(describeResult(result(usage))),
    'tokens: 9,822 in (78% read from the cache: 7,661 read, 2,161 written, 0 uncached), 292 out',
  );
});

test('the same words as keel status, cache or none', () => {
  for (const usage of [
    { inputTokens: 12_000, outputTokens: 345, cacheReadInputTokens: 0, cacheCreationInputTokens: 0 },
    { inputTokens: 10, outputTokens: 5, cacheReadInputTokens: 90, cacheCreationInputTokens: 0 },
  ])
    assert.equal(tokenLine(describeResult(result(usage))), `tokens: ${tokenUsageText(usage)}`);
});
