import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { GoalsAtWork, RECENT_MS } from '../../src/activities/model/goals-at-work';
import { defaultGoalsAtWork, goalsAtWork } from '../../src/config/goals-at-work';
import { placeWaitLimitMs } from '../../src/activities/model/model-activity';

/** A promise's outcome so far, without waiting for it. */
function track<T>(promise: Promise<T>): { value?: T; error?: unknown } {
  const seen: { value?: T; error?: unknown } = {};
  promise.then(
    (value) => (seen.value = value),
    (error: unknown) => (seen.error = error),
  );
  return seen;
}

const settle = () => sleep(5);

test('goals enter while places are free; a goal at work passes again at once', async () => {
  const gate = new GoalsAtWork(2);
  assert.equal(await gate.enter('a'), 'at-work');
  assert.equal(await gate.enter('b'), 'at-work');
  assert.equal(await gate.enter('a'), 'at-work');
  assert.deepEqual(gate.counts, { atWork: 2, waiting: 0 });
});

test('with every place taken a goal waits, and takes the place the first goal leaves', async () => {
  const gate = new GoalsAtWork(1);
  await gate.enter('a');
  const b = track(gate.enter('b'));
  await settle();
  assert.equal(b.value, undefined, 'b waits while a is at work');
  gate.keep('a'); // a's answer asked for tools: a keeps its place
  await settle();
  assert.equal(b.value, undefined);
  gate.leave('a');
  await settle();
  assert.equal(b.value, 'admitted');
  assert.deepEqual(gate.counts, { atWork: 1, waiting: 0 });
});

test('waiters go in first come, first served, a higher priority (a lower key) before them', async () => {
  const gate = new GoalsAtWork(1);
  await gate.enter('first');
  const order: string[] = [];
  const enter = (goal: string, priorityKey?: number) =>
    gate.enter(goal, { priorityKey }).then(() => order.push(goal));
  void enter('second');
  await settle();
  void enter('third');
  await settle();
  void enter('urgent', 1);
  await settle();
  for (const leaving of ['first', 'urgent', 'second', 'third']) {
    gate.leave(leaving);
    await settle();
  }
  assert.deepEqual(order, ['urgent', 'second', 'third']);
});

test('a goal keeps the order it first came in after its place fell idle', async () => {
  const gate = new GoalsAtWork(1, 64, 40);
  await gate.enter('old'); // seen first
  await sleep(60); // a long tool call: the place falls idle
  assert.equal(await gate.enter('new'), 'at-work', 'the idle place goes to the next goal');
  const old = track(gate.enter('old'));
  const newer = track(gate.enter('newer'));
  await settle();
  gate.leave('new');
  await settle();
  assert.equal(old.value, 'admitted', 'the goal seen first goes in before one seen later');
  assert.equal(newer.value, undefined);
});

test('an idle place is given to the next waiter without any other call', async () => {
  const gate = new GoalsAtWork(1, 64, 30);
  await gate.enter('parked'); // then waits for a human: no more calls
  const next = track(gate.enter('next'));
  await settle();
  assert.equal(next.value, undefined);
  await sleep(60);
  assert.equal(next.value, 'admitted');
});

test('a call that waited its limit goes ahead without a place; a cancelled one stops waiting', async () => {
  const gate = new GoalsAtWork(1);
  await gate.enter('a');
  assert.equal(await gate.enter('b', { giveUpAfterMs: 20 }), 'went-ahead');
  const cancel = new AbortController();
  const c = track(gate.enter('c', { signal: cancel.signal }));
  await settle();
  cancel.abort(new Error('cancelled'));
  await settle();
  assert.equal((c.error as Error | undefined)?.message, 'cancelled');
  assert.deepEqual(gate.counts, { atWork: 1, waiting: 0 });
  gate.leave('a');
  assert.equal(await gate.enter('d'), 'at-work');
});

test('a waiter hears how many goals are ahead of it as the line moves', async () => {
  const gate = new GoalsAtWork(1);
  await gate.enter('a');
  void gate.enter('b');
  const heard: number[] = [];
  void gate.enter('c', { waiting: (ahead) => heard.push(ahead) });
  await settle();
  gate.leave('a');
  await settle();
  assert.deepEqual(heard, [1, 0]);
  gate.leave('b'); // c goes in: no waiter is left behind with a timer
});

test('two calls of one waiting goal are let in together', async () => {
  const gate = new GoalsAtWork(1);
  await gate.enter('a');
  const first = track(gate.enter('b'));
  const second = track(gate.enter('b'));
  await settle();
  gate.leave('a');
  await settle();
  assert.deepEqual([first.value, second.value], ['admitted', 'admitted']);
  assert.deepEqual(gate.counts, { atWork: 1, waiting: 0 });
});

test('KEEL_GOALS_AT_WORK: a number, auto for four a core and at least 8; unset, off or 0 for no bound', () => {
  assert.equal(goalsAtWork(undefined, { KEEL_GOALS_AT_WORK: '12' }), 12);
  assert.equal(goalsAtWork(undefined, { KEEL_GOALS_AT_WORK: 'off' }), undefined);
  assert.equal(goalsAtWork(undefined, { KEEL_GOALS_AT_WORK: '0' }), undefined);
  assert.equal(goalsAtWork(false, { KEEL_GOALS_AT_WORK: '12' }), undefined);
  assert.equal(goalsAtWork(5, { KEEL_GOALS_AT_WORK: '12' }), 5);
  assert.equal(goalsAtWork(undefined, {}, 2), undefined);
  assert.equal(goalsAtWork(undefined, { KEEL_GOALS_AT_WORK: 'auto' }, 2), 8);
  assert.equal(goalsAtWork(undefined, { KEEL_GOALS_AT_WORK: 'Auto' }, 6), 24);
  assert.equal(defaultGoalsAtWork(1), 8);
  assert.throws(() => goalsAtWork(undefined, { KEEL_GOALS_AT_WORK: 'many' }), /KEEL_GOALS_AT_WORK must be/);
  assert.throws(() => goalsAtWork(undefined, { KEEL_GOALS_AT_WORK: '-3' }), /KEEL_GOALS_AT_WORK must be/);
  assert.throws(() => goalsAtWork(1.5, {}), /goalsAtWork option/);
  assert.throws(() => new GoalsAtWork(0), /places must be 1 or more/);
});

test('a call waits for a place at most half its attempt, and half its schedule-to-close since it was first scheduled', () => {
  const at = 1_000_000;
  const info = (
    startToCloseTimeoutMs: number,
    scheduleToCloseTimeoutMs: number,
    scheduledTimestampMs = at,
  ) => ({
    startToCloseTimeoutMs,
    scheduleToCloseTimeoutMs,
    scheduledTimestampMs,
  });
  assert.equal(placeWaitLimitMs(info(400_000, 0), at), 200_000);
  assert.equal(placeWaitLimitMs(info(400_000, 100_000), at), 50_000);
  assert.equal(placeWaitLimitMs(info(400_000, 100_000, at - 30_000), at), 20_000, 'earlier attempts count');
  assert.equal(placeWaitLimitMs(info(400_000, 100_000, at - 90_000), at), 0, 'waited enough: go ahead');
  assert.equal(placeWaitLimitMs(info(0, 0), at), 600_000, 'ten minutes without timeouts');
  assert.equal(placeWaitLimitMs(info(6 * 3_600_000, 0), at), 3 * 3_600_000, "a goal's start waits up to 3 h");
});

test('while the worker is busy with more goals than places and room, no goal waits', async () => {
  const gate = new GoalsAtWork(1, 2);
  await gate.enter('a');
  const b = track(gate.enter('b'));
  const c = track(gate.enter('c'));
  await settle();
  assert.deepEqual([b.value, c.value], [undefined, undefined], 'three goals: one at work, two wait');
  assert.equal(await gate.enter('d'), 'went-ahead', 'a fourth goal: more than the worker keeps');
  await settle();
  assert.deepEqual([b.value, c.value], ['went-ahead', 'went-ahead'], 'the line went ahead with it');
  assert.deepEqual(gate.counts, { atWork: 1, waiting: 0 });
});

test("while the worker's cache is full, no goal waits, and the line goes ahead", async () => {
  const gate = new GoalsAtWork(1, 10);
  await gate.enter('a');
  const b = track(gate.enter('b'));
  await settle();
  assert.equal(b.value, undefined, 'b waits for a place');
  let full = true;
  gate.crowded = () => full;
  assert.equal(await gate.enter('c'), 'went-ahead', 'a goal that would wait goes ahead');
  await settle();
  assert.equal(b.value, 'went-ahead', 'the line went ahead with it');
  assert.equal(await gate.enter('a'), 'at-work', 'a goal at work keeps its place');
  full = false;
  const d = track(gate.enter('d'));
  await settle();
  assert.equal(d.value, undefined, 'with room in the cache again, goals wait');
  gate.leave('a');
  await settle();
  assert.equal(d.value, 'admitted');
});

test('goals that have not called for a while no longer count as ones the worker is busy with', async () => {
  let now = 0;
  const gate = new GoalsAtWork(1, 1, 10_000, () => now);
  await gate.enter('a');
  gate.leave('a');
  now = RECENT_MS - 1;
  await gate.enter('b');
  now = RECENT_MS; // a last called RECENT_MS ago: b at work and c waiting fit
  const c = track(gate.enter('c'));
  await settle();
  assert.equal(c.value, undefined, 'c waits');
  gate.leave('b');
  await settle();
  assert.equal(c.value, 'admitted');
});

test('a full waiting room sends the call that would be served last ahead without a place', async () => {
  let now = 0;
  const clock = () => now;
  // One place, room for one: a is at work (its last call no longer recent), b waits.
  const full = new GoalsAtWork(1, 1, 60_000, clock);
  await full.enter('a');
  now = RECENT_MS;
  const b = track(full.enter('b'));
  await settle();
  assert.equal(await full.enter('c'), 'went-ahead', 'the newest goal finds the room full');
  assert.equal(b.value, undefined, 'b still waits');
  full.leave('a'); // b goes in: no waiter is left behind with a timer
  // The same, but a goal served before b comes: b goes ahead, the urgent one waits for a's place.
  now = 0;
  const pushed = new GoalsAtWork(1, 1, 60_000, clock);
  await pushed.enter('a');
  now = RECENT_MS;
  const first = track(pushed.enter('b'));
  const urgent = track(pushed.enter('urgent', { priorityKey: 1 }));
  await settle();
  assert.equal(first.value, 'went-ahead', 'a goal served before the last pushes the last out');
  assert.deepEqual(pushed.counts, { atWork: 1, waiting: 1 });
  pushed.leave('a');
  await settle();
  assert.equal(urgent.value, 'admitted');
});
