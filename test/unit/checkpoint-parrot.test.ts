import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  REMEMBERED_REPLIES,
  rememberReply,
  repeatsEarlierReply,
  replyShape,
  similarity,
} from '../../src/workflows/principles/checkpoint-parrot';

test('the shape of a reply: its distinct words, case and surrounding punctuation aside', () => {
  assert.equal(replyShape('Next: read a.ts, then A.TS again!'), 'next read a.ts then again');
  assert.equal(replyShape('   '), '');
});

test('near-identical replies are repeats; answers about the same code are not', () => {
  const status = 'Still on task: found more context in vendor/lib-4.js; next I will keep reading.';
  const nextStatus = 'Still on task: found more context in vendor/lib-5.js; next I will keep reading.';
  assert.ok(similarity(replyShape(status), replyShape(nextStatus)) >= 0.8);
  assert.ok(repeatsEarlierReply(nextStatus, [replyShape(status)]));
  const answer =
    'The plan matches: module 4 calls old() twice, which rules out a single call site. Next output: both renamed.';
  const other =
    'Module 5 has no call to old(); the plan holds and module 6 is next, where the import must change too.';
  assert.equal(repeatsEarlierReply(other, [replyShape(answer)]), undefined);
  assert.equal(repeatsEarlierReply('', [replyShape(answer)]), undefined);
  // a stricter threshold accepts what a looser one calls a repeat
  assert.equal(repeatsEarlierReply(nextStatus, [replyShape(status)], 0.95), undefined);
});

test('only the latest replies are remembered', () => {
  let earlier: string[] = [];
  for (let index = 0; index < REMEMBERED_REPLIES + 4; index++)
    earlier = rememberReply(earlier, `reply ${index} words`);
  assert.equal(earlier.length, REMEMBERED_REPLIES);
  assert.equal(earlier[0], 'reply 4 words');
  assert.deepEqual(rememberReply(earlier, '  '), earlier);
});
