import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CACHE_BOUNDS,
  defaultMaxCachedWorkflows,
  maxCachedWorkflows,
  GC_HEADROOM,
  PARKED_GOAL_MIB,
} from '../../src/config/workflow-cache';

test('the default cache takes half of the smaller of heap limit and machine memory, at 2.1 MiB a goal and 4× for garbage', () => {
  // This machine kind: a 4,144 MiB heap limit, 24 GiB of memory → 2,072 MiB → 2,072 / 8.4 → 246 goals.
  assert.equal(defaultMaxCachedWorkflows({ heapLimitMiB: 4_144, totalMemoryMiB: 24_000 }), 246);
  // A small container: its memory, not the heap limit, bounds it.
  assert.equal(defaultMaxCachedWorkflows({ heapLimitMiB: 4_144, totalMemoryMiB: 2_048 }), 121);
  assert.equal(PARKED_GOAL_MIB, 2.1);
  assert.equal(GC_HEADROOM, 4);
});

test('on a 4 GiB heap the default holds 200 goals at work (issue 41), their garbage within half the heap', () => {
  const heapLimitMiB = 4_144;
  const cached = defaultMaxCachedWorkflows({ heapLimitMiB, totalMemoryMiB: 24_000 });
  assert.ok(cached >= 200, `${cached} cached goals: fewer than the goals taking turns evicts at every task`);
  assert.ok(cached * PARKED_GOAL_MIB * GC_HEADROOM <= heapLimitMiB / 2, `${cached} cached goals`);
});

test('the default stays between 10 and 1,000 goals', () => {
  assert.equal(defaultMaxCachedWorkflows({ heapLimitMiB: 64, totalMemoryMiB: 64 }), CACHE_BOUNDS.min);
  assert.equal(CACHE_BOUNDS.min, 10);
  assert.equal(
    defaultMaxCachedWorkflows({ heapLimitMiB: 128_000, totalMemoryMiB: 512_000 }),
    CACHE_BOUNDS.max,
  );
  assert.equal(CACHE_BOUNDS.max, 1_000);
});

test('the option wins over KEEL_MAX_CACHED_WORKFLOWS, which wins over the default', () => {
  const memory = { heapLimitMiB: 4_144, totalMemoryMiB: 24_000 };
  assert.equal(maxCachedWorkflows(50, { KEEL_MAX_CACHED_WORKFLOWS: '30' }, memory), 50);
  assert.equal(maxCachedWorkflows(undefined, { KEEL_MAX_CACHED_WORKFLOWS: '30' }, memory), 30);
  assert.equal(maxCachedWorkflows(undefined, { KEEL_MAX_CACHED_WORKFLOWS: ' ' }, memory), 246);
  assert.equal(maxCachedWorkflows(undefined, {}, memory), 246);
});

test('a cache of fewer than 2 goals, or not a whole number, is one line at start', () => {
  const memory = { heapLimitMiB: 4_144, totalMemoryMiB: 24_000 };
  assert.throws(
    () => maxCachedWorkflows(1, {}, memory),
    /^HostSettingsError: the maxCachedWorkflows option must be at least 2, got 1$/,
  );
  assert.throws(
    () => maxCachedWorkflows(undefined, { KEEL_MAX_CACHED_WORKFLOWS: '1' }, memory),
    /^HostSettingsError: KEEL_MAX_CACHED_WORKFLOWS must be at least 2, got 1$/,
  );
  assert.throws(
    () => maxCachedWorkflows(undefined, { KEEL_MAX_CACHED_WORKFLOWS: 'lots' }, memory),
    /KEEL_MAX_CACHED_WORKFLOWS must be a positive whole number, got "lots"/,
  );
});
