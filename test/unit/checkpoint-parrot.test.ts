import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  REMEMBERED_REPLIES,
  rememberReply,
  repeatsEarlierReply,
  replyShape,
  similarity,
  type RememberedReply,
} from '../../src/workflows/principles/checkpoint-parrot';

const said = (text: string, atTurn: number): RememberedReply => ({ shape: replyShape(text), atTurn });

test('the shape of a reply: its distinct words, case and surrounding punctuation aside', () => {
  assert.equal(replyShape('Next: read a.ts, then A.TS again!'), 'next read a.ts then again');
  assert.equal(replyShape('   '), '');
});

test('near-identical to a reply given since the last change: a repeat', () => {
  const status = 'Still on task: found more context in vendor/lib-4.js; next I will keep reading.';
  const nextStatus = 'Still on task: found more context in vendor/lib-5.js; next I will keep reading.';
  assert.ok(similarity(replyShape(status), replyShape(nextStatus)) >= 0.8);
  assert.ok(repeatsEarlierReply(nextStatus, [said(status, 7)], { changedAtTurn: 3 }));
  // the same line given before the workspace last changed: repetitive work that moves
  assert.equal(repeatsEarlierReply(nextStatus, [said(status, 7)], { changedAtTurn: 7 }), undefined);
  // a stricter threshold accepts what a looser one calls a repeat
  assert.equal(
    repeatsEarlierReply(nextStatus, [said(status, 7)], { changedAtTurn: 3, similarity: 0.9 }),
    undefined,
  );
});

test('a fixed text (the same answer as two earlier replies) is a repeat however much the task moved since', () => {
  const boilerplate =
    '1. The plan still matches the task. 2. The recent steps confirmed the approach works. 3. Next I will continue.';
  assert.ok(
    repeatsEarlierReply(` ${boilerplate.toUpperCase()}`, [said(boilerplate, 2), said(boilerplate, 3)], {
      changedAtTurn: 30,
    }),
  );
});

test('a true answer given again is answered when something moved since the earlier one, not when nothing did (issue 44)', () => {
  const answer =
    'Still on plan: the request path runs through the router and the session cache; next I read more.';
  // Read new modules since turn 4 (last new at turn 9): answered.
  assert.equal(repeatsEarlierReply(answer, [said(answer, 4)], { changedAtTurn: 9 }), undefined);
  // Nothing new since the earlier answer (last new at turn 3): unanswered.
  assert.equal(repeatsEarlierReply(answer, [said(answer, 4)], { changedAtTurn: 3 }), replyShape(answer));
});

test('a narration template: near-identical to two replies since the workspace last changed, however much was read', () => {
  const line = (n: number) =>
    `Still on task: found more context in vendor/lib-${n}.js; next I will keep reading.`;
  const told = [said(line(4), 5), said(line(5), 6)];
  assert.equal(
    repeatsEarlierReply(line(6), told, { changedAtTurn: 7, lastingChangeAtTurn: 4 }),
    replyShape(line(4)),
  );
  // one of them before the change: told once since, not a template
  assert.equal(repeatsEarlierReply(line(6), told, { changedAtTurn: 7, lastingChangeAtTurn: 5 }), undefined);
  // without the lasting change given, only the other rules apply
  assert.equal(repeatsEarlierReply(line(6), told, { changedAtTurn: 7 }), undefined);
});

test('answers about the same code are not repeats; an empty reply repeats nothing', () => {
  const answer =
    'The plan matches: module 4 calls old() twice, which rules out a single call site. Next output: both renamed.';
  const other =
    'Module 5 has no call to old(); the plan holds and module 6 is next, where the import must change too.';
  assert.equal(repeatsEarlierReply(other, [said(answer, 5)], { changedAtTurn: 0 }), undefined);
  assert.equal(repeatsEarlierReply('', [said(answer, 5)], { changedAtTurn: 0 }), undefined);
});

test('only the latest replies are remembered, with their turn', () => {
  let earlier: RememberedReply[] = [];
  for (let index = 0; index < REMEMBERED_REPLIES + 4; index++)
    earlier = rememberReply(earlier, `reply ${index} words`, index);
  assert.equal(earlier.length, REMEMBERED_REPLIES);
  assert.deepEqual(earlier[0], { shape: 'reply 4 words', atTurn: 4 });
  assert.deepEqual(rememberReply(earlier, '  ', 99), earlier);
});
