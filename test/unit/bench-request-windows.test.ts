import { test } from 'node:test';
import assert from 'node:assert/strict';
import { busiestWindow, countWithin } from '../../scripts/bench/request-windows';

test('countWithin counts the start of the range and not its end', () => {
  assert.equal(countWithin([0, 500, 9_999, 10_000, 12_000], 0, 10_000), 3);
  assert.equal(countWithin([], 0, 10_000), 0);
});

test('the busiest window is found across a whole second, not only on whole seconds', () => {
  // Five goals asking together at 0.9 s and again at 1.1 s: ten requests in one second.
  const together = [900, 900, 901, 902, 903, 1100, 1100, 1101, 1102, 1104];
  assert.equal(busiestWindow(together), 10);
  // Spread one every 300 ms: at most four in any second ([0, 1000) holds 0, 300, 600, 900).
  assert.equal(busiestWindow(Array.from({ length: 10 }, (_, index) => index * 300)), 4);
});

test('a window is half-open: a request exactly one window later falls in the next', () => {
  assert.equal(busiestWindow([0, 1000, 2000]), 1);
  assert.equal(busiestWindow([2000, 0, 999]), 2);
  assert.equal(busiestWindow([]), 0);
  assert.equal(busiestWindow([0, 1500, 1600], 200), 2);
});
