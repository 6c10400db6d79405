import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  cosineSimilarity,
  HYPERVECTOR_DIMENSIONS,
  normalizeWord,
  randomHypervector,
  tokenize,
} from '../../src/workflows/planning/hypervector';

/**
 * The hypervector encoding's edges (issue 27: mutation testing; src/workflows/planning/hypervector.ts):
 * the stemmer's length limits (3 letters kept whole, -ied only past 4, -ing/-ed only leaving 3,
 * a double letter undone only in a stem of 4 or more, a trailing -e only past 3) and a zero vector
 * on either side of the cosine. The encoding itself is pinned by hypervector.test.ts.
 */

test('stemmer: a word of 3 letters or fewer is kept whole, whatever it ends with', () => {
  for (const word of ['was', 'ies', 'bus', 'ace', 'red']) assert.equal(normalizeWord(word), word, word);
  assert.equal(normalizeWord('Was'), 'was');
});

test('stemmer: -ied becomes -y only in a word of 5 letters or more ("tied" stays, "dried" is "dry")', () => {
  assert.equal(normalizeWord('tied'), 'tied');
  assert.equal(normalizeWord('died'), 'died');
  assert.equal(normalizeWord('dried'), 'dry');
});

test('stemmer: -ing and -ed are cut only when 3 letters are left ("sing" and "seed" stay)', () => {
  assert.equal(normalizeWord('sing'), 'sing');
  assert.equal(normalizeWord('seed'), 'seed');
  assert.equal(normalizeWord('using'), 'using');
  assert.equal(normalizeWord('owing'), 'owing');
  assert.equal(normalizeWord('aimed'), 'aim');
  assert.equal(normalizeWord('going'), 'going');
});

test('stemmer: a doubled last letter is undone from a stem of 4 or more, never ll, ss or zz', () => {
  assert.equal(normalizeWord('bidding'), 'bid');
  assert.equal(normalizeWord('stopped'), 'stop');
  assert.equal(normalizeWord('added'), 'add');
  assert.equal(normalizeWord('egged'), 'egg');
  assert.equal(normalizeWord('called'), 'call');
  assert.equal(normalizeWord('passed'), 'pass');
  assert.equal(normalizeWord('buzzed'), 'buzz');
});

test('stemmer: a trailing -e is cut only past 3 letters ("uses" is "use", "care" is "car")', () => {
  assert.equal(normalizeWord('uses'), 'use');
  assert.equal(normalizeWord('care'), 'car');
  assert.equal(normalizeWord('eyes'), 'eye');
});

test('tokenize drops the empty pieces between separators, at both ends too', () => {
  assert.deepEqual(tokenize('--a--b--'), ['a', 'b']);
  assert.deepEqual(tokenize(''), []);
});

test('cosineSimilarity is 0 when either side is all zeros, not NaN', () => {
  const zero = new Int8Array(HYPERVECTOR_DIMENSIONS);
  const vector = randomHypervector('x');
  assert.equal(cosineSimilarity(zero, vector), 0);
  assert.equal(cosineSimilarity(vector, zero), 0);
  assert.equal(cosineSimilarity(zero, zero), 0);
});
