import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultPayloadConverter } from '@temporalio/common';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow/data-converter-helpers';
import type { temporal } from '@temporalio/proto';
import { checkpointHome } from '../../src/client/fork/checkpoint-home';

/**
 * Where a turn's files are kept (checkpoint-home.ts, issue 48), read from history events: on the
 * host of the first changing call from the turn on, and on every host a move carried them to.
 */

type Event = temporal.api.history.v1.IHistoryEvent;
/** Event ids are Longs in the SDK's types; these hand-made events use numbers, which String() reads alike. */
const eventId = (id: number) => id as unknown as NonNullable<Event['eventId']>;
const converter = loadDataConverter();
const payloads = (value: unknown) => ({ payloads: [defaultPayloadConverter.toPayload(value)] });

/** A history from a list of steps: changing calls (host, path, label, key) and carried moves. */
function history(
  steps: Array<
    | { call: { host?: string; workspace: string; turn?: number; key?: string } }
    | { carried: boolean | 'no-store' }
  >,
): temporal.api.history.v1.IHistory {
  const events: Event[] = [];
  let id = 1;
  for (const step of steps) {
    if ('call' in step) {
      const { host, workspace, turn, key = 'goal-x' } = step.call;
      const input = { host, workspace, ...(turn === undefined ? {} : { checkpoint: { key, turn } }) };
      events.push({
        eventId: eventId(id++),
        activityTaskScheduledEventAttributes: {
          activityType: { name: 'executeTool' },
          input: payloads(input),
        },
      });
      continue;
    }
    const scheduled = id++;
    events.push({
      eventId: eventId(scheduled),
      activityTaskScheduledEventAttributes: { activityType: { name: 'packWorkspace' }, input: payloads({}) },
    });
    const pack = step.carried === 'no-store' ? {} : { checkpoints: { carried: step.carried, files: 3 } };
    events.push({
      eventId: eventId(id++),
      activityTaskCompletedEventAttributes: { scheduledEventId: eventId(scheduled), result: payloads(pack) },
    });
  }
  return { events };
}

const onA = (turn?: number, key?: string) => ({
  call: {
    host: 'h-a',
    workspace: '/a/app',
    ...(turn === undefined ? {} : { turn }),
    ...(key === undefined ? {} : { key }),
  },
});
const onB = (turn?: number) => ({
  call: { host: 'h-b', workspace: '/b/app', ...(turn === undefined ? {} : { turn }) },
});

test('the first changing call from the turn on names the checkpoint; read-only calls and earlier turns do not', async () => {
  const runs = [history([onA(1), onA(), onA(3), onA(5)])];
  assert.deepEqual(await checkpointHome(converter, runs, 2, 'goal-x'), {
    turn: 3,
    host: 'h-a',
    workspace: '/a/app',
  });
  assert.equal(await checkpointHome(converter, runs, 6, 'goal-x'), undefined, 'nothing changed since turn 6');
  const unbound = [history([{ call: { workspace: '/w/app', turn: 2 } }])];
  assert.deepEqual(await checkpointHome(converter, unbound, 1, 'goal-x'), { turn: 2, workspace: '/w/app' });
});

test('another timeline (a rewind key) is not this turn’s checkpoint', async () => {
  const runs = [history([onA(4, 'goal-x~rewind-t'), onA(6)])];
  assert.deepEqual(await checkpointHome(converter, runs, 3, 'goal-x'), {
    turn: 6,
    host: 'h-a',
    workspace: '/a/app',
  });
});

test('a move that carried the checkpoints takes the home along; one that did not leaves it where they were taken', async () => {
  const carried = [history([onA(2), { carried: true }]), history([onB(4)])];
  assert.deepEqual(await checkpointHome(converter, carried, 1, 'goal-x'), {
    turn: 2,
    host: 'h-b',
    workspace: '/b/app',
  });
  const noStore = [history([onA(2), { carried: 'no-store' }, onB(4)])];
  assert.equal((await checkpointHome(converter, noStore, 1, 'goal-x'))?.host, 'h-b');
  const leftBehind = [history([onA(2), { carried: false }, onB(4)])];
  assert.deepEqual(await checkpointHome(converter, leftBehind, 1, 'goal-x'), {
    turn: 2,
    host: 'h-a',
    workspace: '/a/app',
  });
  const notCarried = [history([onA(2), onB(4), { carried: true }, onA(5)])];
  assert.equal(
    (await checkpointHome(converter, notCarried, 1, 'goal-x'))?.host,
    'h-a',
    'a plain move ends the trail',
  );
  const carriedBefore = [history([{ carried: true }, onA(2), onB(4)])];
  assert.equal(
    (await checkpointHome(converter, carriedBefore, 1, 'goal-x'))?.host,
    'h-a',
    'a carry before the turn counts not',
  );
});

test('two moves between changing calls: the checkpoints follow only if both carried them', async () => {
  const onC = { call: { host: 'h-c', workspace: '/c/app', turn: 4 } };
  const home = async (first: boolean, second: boolean) =>
    (
      await checkpointHome(
        converter,
        [history([onA(2), { carried: first }, { carried: second }, onC])],
        1,
        'goal-x',
      )
    )?.host;
  assert.equal(await home(true, true), 'h-c');
  // Left on h-a by the first move, h-b had none to pack: h-c never got them.
  assert.equal(await home(false, true), 'h-a');
  assert.equal(await home(true, false), 'h-a', 'h-a still holds them: a carry copies, it does not move');
  assert.equal(await home(false, false), 'h-a');
});
