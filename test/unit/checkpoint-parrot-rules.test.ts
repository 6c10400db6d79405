import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_PARROT_SIMILARITY,
  FIXED_TEXT_REPEATS,
  rememberReply,
  REMEMBERED_REPLIES,
  repeatsEarlierReply,
  replyShape,
  SAME_ANSWER_SIMILARITY,
  similarity,
  type RememberedReply,
} from '../../src/workflows/principles/checkpoint-parrot';

/**
 * The checkpoint parrot's rules (checkpoint-parrot.ts; issue 27: mutation testing): a reply's
 * shape is its first 60 distinct words, lower-cased, punctuation around them stripped; two shapes
 * are compared by word overlap (Jaccard); a reply repeats an earlier one at 0.8 (settable) when
 * nothing moved since that one, or at 0.95 any time when it repeats 2 or more earlier replies (a
 * fixed text, issue 44); 16 replies remembered.
 */

const words = (count: number, prefix = 'w') =>
  Array.from({ length: count }, (_, index) => `${prefix}${index}`);

test('the numbers: 0.8 near, 0.95 the same answer, a fixed text after 2, 16 replies remembered', () => {
  assert.equal(DEFAULT_PARROT_SIMILARITY, 0.8);
  assert.equal(SAME_ANSWER_SIMILARITY, 0.95);
  assert.equal(FIXED_TEXT_REPEATS, 2);
  assert.equal(REMEMBERED_REPLIES, 16);
});

test('a shape: words split on any whitespace, lower-cased, punctuation around a word stripped (inside kept), each word once', () => {
  assert.equal(replyShape('  Tests PASS.\n\t(tests pass) "src/a.ts," — ok!  '), 'tests pass src/a.ts ok');
  assert.equal(replyShape('Ünïcode Straße 42%'), 'ünïcode straße 42');
  assert.equal(replyShape('((word)) ..end'), 'word end');
  assert.equal(replyShape('... !!! —'), '');
  assert.equal(replyShape(''), '');
});

test('a shape keeps the first 60 distinct words', () => {
  assert.equal(replyShape([...words(61), 'w0'].join(' ')), words(60).join(' '));
  assert.equal(replyShape(words(60).join(' ')), words(60).join(' '));
});

test('similarity: shared words over all distinct words; two empty shapes are alike, one empty is not', () => {
  assert.equal(similarity('a b c', 'a b c'), 1);
  assert.equal(similarity('a b c', 'c b a'), 1);
  assert.equal(similarity('a b c d', 'a b c e'), 3 / 5);
  assert.equal(similarity('a b', 'c d'), 0);
  assert.equal(similarity('a a b', 'a b b'), 1);
  assert.equal(similarity('a  b', 'a b'), 1);
  assert.equal(similarity('', ''), 1);
  assert.equal(similarity('', 'a'), 0);
  assert.equal(similarity('a', ''), 0);
});

const remembered = (text: string, atTurn: number): RememberedReply => ({ shape: replyShape(text), atTurn });
/** 20 words and a variant sharing `shared` of them (Jaccard shared / (40 - shared)). */
const base = words(20).join(' ');
const variant = (shared: number) => [...words(shared), ...words(20 - shared, 'x')].join(' ');

test('the same answer (overlap 0.95 and up) as 2 earlier replies repeats at any turn; as 1, or just under, it does not once something moved', () => {
  // 39 of 41 words shared: 39/41 ≈ 0.951; 38 of 42: ≈ 0.905
  const long = words(40).join(' ');
  const twice = [remembered(long, 1), remembered(long, 2)];
  const same = [...words(39), 'extra'].join(' ');
  assert.equal(similarity(replyShape(same), replyShape(long)) >= 0.95, true);
  assert.equal(repeatsEarlierReply(same, twice, { changedAtTurn: 5 }), replyShape(long));
  // A true answer given once before, with something new since: answered (issue 44).
  assert.equal(repeatsEarlierReply(same, twice.slice(0, 1), { changedAtTurn: 5 }), undefined);
  assert.equal(repeatsEarlierReply(long, twice.slice(0, 1), { changedAtTurn: 5 }), undefined);
  const near = [...words(38), 'x1', 'x2'].join(' ');
  assert.equal(repeatsEarlierReply(near, twice, { changedAtTurn: 5 }), undefined);
  assert.equal(repeatsEarlierReply(long, twice, { changedAtTurn: 5 }), replyShape(long));
});

test('exactly 0.95 is the same answer', () => {
  // 19 shared of 20 words: 19 / 20 = 0.95
  const twice = [remembered(words(20).join(' '), 1), remembered(words(20).join(' '), 2)];
  assert.equal(
    repeatsEarlierReply(words(19).join(' '), twice, { changedAtTurn: 5 }),
    replyShape(words(20).join(' ')),
  );
  // 18 of 20 (0.9) with two earlier and something moved since: not a fixed text.
  assert.equal(repeatsEarlierReply(words(18).join(' '), twice, { changedAtTurn: 5 }), undefined);
});

test('near-identical (0.8 and up) repeats only a reply given after the workspace last changed', () => {
  // 18 of 20 words shared: 18 / 22 ≈ 0.818; 17 of 20: 17 / 23 ≈ 0.739
  const near = variant(18);
  assert.equal(repeatsEarlierReply(near, [remembered(base, 6)], { changedAtTurn: 5 }), replyShape(base));
  assert.equal(repeatsEarlierReply(near, [remembered(base, 5)], { changedAtTurn: 5 }), undefined);
  assert.equal(repeatsEarlierReply(variant(17), [remembered(base, 6)], { changedAtTurn: 5 }), undefined);
});

test('exactly 0.8 is near-identical; the threshold is settable, and above 0.95 it is also the same-answer one', () => {
  // 16 shared of 20 words: 16 / 20 = 0.8
  const earlier = [remembered(base, 6)];
  assert.equal(repeatsEarlierReply(words(16).join(' '), earlier, { changedAtTurn: 5 }), replyShape(base));
  assert.equal(repeatsEarlierReply(variant(18), earlier, { similarity: 0.85, changedAtTurn: 5 }), undefined);
  assert.equal(
    repeatsEarlierReply(variant(17), earlier, { similarity: 0.7, changedAtTurn: 5 }),
    replyShape(base),
  );
  // above 0.95 the setting is also the any-turn threshold: 0.95 no longer repeats an old reply, 1 does
  const old = [remembered(base, 1), remembered(base, 2)];
  assert.equal(
    repeatsEarlierReply(words(19).join(' '), old, { similarity: 0.99, changedAtTurn: 5 }),
    undefined,
  );
  assert.equal(repeatsEarlierReply(base, old, { similarity: 0.99, changedAtTurn: 5 }), replyShape(base));
});

test('the first matching earlier reply is named; empty replies and empty remembered shapes repeat nothing', () => {
  const earlier = [remembered('alpha beta', 1), remembered('Tests pass', 7), remembered('tests pass!', 8)];
  assert.equal(repeatsEarlierReply('TESTS PASS.', earlier, { changedAtTurn: 0 }), 'tests pass');
  assert.equal(repeatsEarlierReply('  ...  ', earlier, { changedAtTurn: 0 }), undefined);
  assert.equal(
    repeatsEarlierReply('anything', [{ shape: '', atTurn: 9 }], { changedAtTurn: 0, similarity: 0 }),
    undefined,
  );
  assert.equal(repeatsEarlierReply('other words', earlier, { changedAtTurn: 0 }), undefined);
  const both = [remembered('tests pass ok', 7), remembered('tests pass', 8)];
  assert.equal(
    repeatsEarlierReply('tests pass', both, { similarity: 0.5, changedAtTurn: 0 }),
    'tests pass ok',
  );
  assert.equal(
    repeatsEarlierReply('...', [remembered('a', 9)], { similarity: 0, changedAtTurn: 0 }),
    undefined,
  );
});

test('rememberReply adds the shape and turn, keeps the newest 16, skips an empty reply, and returns a new list', () => {
  const earlier: RememberedReply[] = [];
  const added = rememberReply(earlier, 'Done. Next!', 3);
  assert.deepEqual(added, [{ shape: 'done next', atTurn: 3 }]);
  assert.deepEqual(earlier, []);
  const skipped = rememberReply(added, ' — ', 4);
  assert.deepEqual(skipped, added);
  assert.notStrictEqual(skipped, added);
  let list: RememberedReply[] = [];
  for (let turn = 0; turn < 17; turn++) list = rememberReply(list, `reply ${turn}`, turn);
  assert.equal(list.length, 16);
  assert.deepEqual(list[0], { shape: 'reply 1', atTurn: 1 });
  assert.deepEqual(list[15], { shape: 'reply 16', atTurn: 16 });
});
