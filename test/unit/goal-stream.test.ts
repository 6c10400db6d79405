import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  formatServerSentEnd,
  formatServerSentEvent,
  ledgerStreamEvents,
  OFFSET_SLOTS,
  resumeOffset,
  sequenceOfOffset,
  StreamEventKind,
  textDelta,
  textStreamEvent,
  type GoalStreamEvent,
} from '../../src/client/goal-stream';
import { appendEvent, emptyLedger, LedgerEventKind, type Ledger } from '../../src/workflows/common/ledger';
import type { StreamProgress } from '../../src/workflows/goal/model-turn/call-settings';

const AT = '2026-12-03T07:00:00.000Z';
const now = (): Date => new Date(AT);

function ledgerOf(count: number, maxEvents = 500): Ledger {
  let ledger = emptyLedger();
  for (let index = 1; index <= count; index += 1) {
    ledger = appendEvent(
      ledger,
      { at: AT, kind: LedgerEventKind.ToolCalled, summary: `call ${index}`, data: { index } },
      { maxEvents },
    );
  }
  return ledger;
}

function progress(
  latest: string,
  events: number,
  writing: StreamProgress['writing'] = 'text',
): StreamProgress {
  return { kind: 'model-stream', outputTokens: Math.ceil(latest.length / 4), events, latest, writing };
}

test('ledger events become stream events whose offset is the sequence times the slots', () => {
  const events = ledgerStreamEvents(ledgerOf(3).events, 0, now);
  assert.deepEqual(
    events.map((event) => event.offset),
    [1, 2, 3].map((sequence) => sequence * OFFSET_SLOTS),
  );
  assert.deepEqual(events[1], {
    offset: 2 * OFFSET_SLOTS,
    at: AT,
    kind: 'tool.called',
    summary: 'call 2',
    data: { index: 2, sequence: 2 },
  });
});

test('a resume after an offset gets only the events after it, a text offset included', () => {
  const ledger = ledgerOf(5);
  assert.deepEqual(
    ledgerStreamEvents(ledger.events, 3 * OFFSET_SLOTS, now).map((event) => event.data.sequence),
    [4, 5],
  );
  // 3 × slots + 40 is text after event 3: event 4 is next.
  assert.deepEqual(
    ledgerStreamEvents(ledger.events, 3 * OFFSET_SLOTS + 40, now).map((event) => event.data.sequence),
    [4, 5],
  );
  assert.deepEqual(ledgerStreamEvents(ledger.events, 5 * OFFSET_SLOTS, now), []);
});

test('a resume older than the oldest event kept is told exactly what it missed, then goes on', () => {
  const ledger = ledgerOf(30, 10); // keeps 21..30
  assert.equal(ledger.dropped, 20);
  const events = ledgerStreamEvents(ledger.events, 4 * OFFSET_SLOTS, now);
  const [gap, first] = events;
  assert.deepEqual(gap, {
    offset: 21 * OFFSET_SLOTS - 1,
    at: AT,
    kind: StreamEventKind.Gap,
    summary: '16 events missed: the goal keeps only its newest events',
    data: { missed: 16, fromOffset: 5 * OFFSET_SLOTS, toOffset: 20 * OFFSET_SLOTS },
  });
  assert.equal(first?.data.sequence, 21);
  assert.equal(events.length, 11);
  // Resuming after the gap itself reports nothing missed again.
  assert.equal(ledgerStreamEvents(ledger.events, gap.offset, now)[0]?.kind, 'tool.called');
  // A viewer that saw everything kept, or up to just before it, misses nothing.
  assert.equal(ledgerStreamEvents(ledger.events, 20 * OFFSET_SLOTS, now)[0]?.kind, 'tool.called');
});

test('offsets rise strictly over ledger events, text between them and a gap', () => {
  const ledger = ledgerOf(12, 5);
  const seen: GoalStreamEvent[] = [...ledgerStreamEvents(ledger.events.slice(0, 2), 2 * OFFSET_SLOTS, now)];
  const text = textStreamEvent(progress('Hello', 7), seen.at(-1)?.offset ?? 0, undefined, now);
  assert.ok(text);
  seen.push(text, ...ledgerStreamEvents(ledger.events, text.offset, now));
  for (let index = 1; index < seen.length; index += 1) {
    assert.ok((seen[index]?.offset ?? 0) > (seen[index - 1]?.offset ?? 0), `offset ${index} rises`);
  }
  assert.equal(sequenceOfOffset(text.offset), 9);
});

test('text events carry what is new since the last window, at the offset of the stream so far', () => {
  const after = 4 * OFFSET_SLOTS;
  const first = textStreamEvent(progress('The answer', 3), after, undefined, now);
  assert.deepEqual(first, {
    offset: after + 3,
    at: AT,
    kind: 'model.text',
    summary: 'The answer',
    data: { text: 'The answer', joined: false, writing: 'text', outputTokens: 3 },
  });
  const second = textStreamEvent(progress('The answer is 42.', 6), first.offset, 'The answer', now);
  assert.equal(second?.offset, after + 6);
  assert.equal(second?.data.text, ' is 42.');
  assert.equal(second?.data.joined, true);
  // The same heartbeat again, an older one, and thinking add nothing.
  assert.equal(
    textStreamEvent(progress('The answer is 42.', 6), after + 6, 'The answer is 42.', now),
    undefined,
  );
  assert.equal(textStreamEvent(progress('The answer', 3), after + 6, undefined, now), undefined);
  assert.equal(textStreamEvent(progress('hmm', 9, 'thinking'), after + 6, undefined, now), undefined);
});

test('textDelta finds the overlap of two sliding windows, and says when there is none', () => {
  assert.deepEqual(textDelta('abcdef', 'cdefgh'), { text: 'gh', joined: true });
  assert.deepEqual(textDelta('aaaa', 'aaaab'), { text: 'b', joined: true });
  assert.deepEqual(textDelta('abc', 'xyz'), { text: 'xyz', joined: false });
  assert.deepEqual(textDelta(undefined, 'xyz'), { text: 'xyz', joined: false });
  assert.deepEqual(textDelta('xyz', 'xyz'), { text: '', joined: true });
});

test('Server-Sent Events: the offset is the id, the kind the event, the whole event the data', () => {
  const event: GoalStreamEvent = {
    offset: 7 * OFFSET_SLOTS,
    at: AT,
    kind: 'approval.requested',
    summary: 'two\nlines',
    data: { callId: 'c1' },
  };
  const text = formatServerSentEvent(event);
  assert.equal(
    text,
    `id: 7000000\nevent: approval.requested\ndata: {"offset":7000000,"at":"${AT}","kind":"approval.requested","summary":"two\\nlines","data":{"callId":"c1"}}\n\n`,
  );
  const [, , data] = text.split('\n');
  assert.deepEqual(JSON.parse(data?.slice('data: '.length) ?? ''), event);
  assert.equal(formatServerSentEnd({ status: 'completed' }), 'event: end\ndata: {"status":"completed"}\n\n');
  assert.equal(resumeOffset('7000000'), 7_000_000);
  assert.equal(resumeOffset(' 12 '), 12);
  for (const bad of [undefined, null, '', 'x', '-3', '1.5']) assert.equal(resumeOffset(bad), 0, String(bad));
});
