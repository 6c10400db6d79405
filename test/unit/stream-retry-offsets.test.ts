import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Anthropic from '@anthropic-ai/sdk';
import { OFFSET_SLOTS, textStreamEvent } from '../../src/client/goal-stream';
import { eventsBeforeAttempt, StreamProgressTracker } from '../../src/activities/model/stream-progress';

/**
 * Issue 46: a model call retried mid-answer starts its stream again. Its text's offsets counted
 * this attempt's events only, so a viewer who had seen the first attempt's text skipped the retry's
 * until it passed the old count. Now each attempt starts counting where the last one's heartbeat
 * left off (Temporal hands a retry the last heartbeat), and the retry's text comes at once.
 */

const now = () => new Date('2026-12-03T12:00:00.000Z');

function textEvent(text: string): Anthropic.MessageStreamEvent {
  return { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } };
}

function streamed(tracker: StreamProgressTracker, parts: string[]): void {
  tracker.observe({
    type: 'content_block_start',
    index: 0,
    content_block: { type: 'text', text: '', citations: null },
  });
  for (const part of parts) tracker.observe(textEvent(part));
}

test("a retried attempt counts on from the earlier attempts' last heartbeat", () => {
  const first = new StreamProgressTracker(eventsBeforeAttempt(undefined));
  streamed(first, ['The answer ', 'is long', ' and then']);
  const cut = { ...first.snapshot(), lastError: 'overloaded_error' };
  assert.equal(cut.events, 4);
  assert.equal(cut.eventsBefore, undefined, 'a first attempt has nothing before it');

  const second = new StreamProgressTracker(eventsBeforeAttempt(cut));
  streamed(second, ['The answer']);
  assert.deepEqual([second.snapshot().eventsBefore, second.snapshot().events], [4, 2]);
  // A third attempt counts both earlier ones, from the second's last beat.
  assert.equal(eventsBeforeAttempt(second.snapshot()), 6);
});

test("the retry's text comes at once, after what a viewer saw of the first attempt", () => {
  const first = new StreamProgressTracker();
  streamed(
    first,
    Array.from({ length: 40 }, (_, index) => `part ${index} `),
  );
  const ledgerAt = 7 * OFFSET_SLOTS;
  const seen = textStreamEvent(first.snapshot(), ledgerAt, undefined, now);
  assert.ok(seen);

  const retry = new StreamProgressTracker(eventsBeforeAttempt({ ...first.snapshot(), lastError: '529' }));
  streamed(retry, ['Starting again']);
  const again = textStreamEvent(retry.snapshot(), seen.offset, seen.summary, now);
  assert.ok(again, 'the retry is shown before it has streamed as much as the first attempt');
  assert.ok(again.offset > seen.offset);
  assert.equal(again.data.text, 'Starting again');
});

test('other heartbeat details count as no earlier events', () => {
  assert.equal(eventsBeforeAttempt(undefined), 0);
  assert.equal(eventsBeforeAttempt({ kind: 'something-else', events: 9 }), 0);
  assert.equal(eventsBeforeAttempt({ kind: 'model-stream', events: -3, eventsBefore: 1.5 }), 0);
  assert.equal(eventsBeforeAttempt({ kind: 'model-stream', events: 3, eventsBefore: 2 }), 5);
  assert.equal(eventsBeforeAttempt('model-stream'), 0);
});
