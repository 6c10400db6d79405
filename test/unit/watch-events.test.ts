import { test } from 'node:test';
import assert from 'node:assert/strict';
import { eventLine, eventLines, logLine } from '../../src/cli/watch-events';
import type { GoalStreamEvent } from '../../src/client/goal-events';

const event = (offset: number, kind: string, summary: string): GoalStreamEvent => ({
  offset,
  at: '2026-12-03T07:00:00.000Z',
  kind,
  summary,
  data: {},
});

test('an event line is its offset, kind and summary on one line; streamed text is marked as a part', () => {
  assert.equal(
    eventLine(event(4_000_000, 'tool.called', 'list_dir:\n .')),
    '[4000000] tool.called: list_dir: .',
  );
  assert.equal(
    eventLine(event(4_000_012, 'model.text', 'sentence 2.')),
    '[4000012] model.text: …sentence 2.',
  );
  assert.equal(eventLine(event(1, 'x', 'y'.repeat(400))).length, '[1] x: '.length + 160);
});

test('under a TTY frame: the latest events and how to resume after the last', () => {
  assert.deepEqual(eventLines([], 'g1'), []);
  assert.deepEqual(
    eventLines([event(1_000_000, 'goal.started', 'started'), event(2_000_000, 'host.bound', 'bound')], 'g1'),
    [
      'events (resume: keel watch g1 --after 2000000):',
      '  [1000000] goal.started: started',
      '  [2000000] host.bound: bound',
    ],
  );
});

test('a log leaves how the goal ended to the view and the result (said once)', () => {
  assert.equal(logLine(event(9, 'goal.completed', 'goal completed: final answer given')), undefined);
  assert.equal(logLine(event(9, 'goal.failed', 'goal failed')), undefined);
  assert.equal(
    logLine(event(8, 'model.answered', 'model turn 2: done')),
    '[8] model.answered: model turn 2: done',
  );
});
