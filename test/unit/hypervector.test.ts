import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  HYPERVECTOR_DIMENSIONS,
  bind,
  bundle,
  cosineSimilarity,
  encodeStem,
  encodeText,
  encodeTrigram,
  encodeWord,
  hashString,
  normalizeWord,
  permute,
  randomHypervector,
  seededRandom,
  tokenize,
} from '../../src/workflows/planning/hypervector';

test('hashString is 32-bit FNV-1a (reference vectors from the FNV specification)', () => {
  assert.equal(hashString(''), 0x811c9dc5);
  assert.equal(hashString('a'), 0xe40c292c);
  assert.equal(hashString('foobar'), 0xbf9cf968);
});

test('seededRandom repeats its sequence for a seed and differs across seeds', () => {
  const first = seededRandom(42);
  const again = seededRandom(42);
  const other = seededRandom(43);
  const sequence = Array.from({ length: 5 }, () => first());
  assert.deepEqual(
    Array.from({ length: 5 }, () => again()),
    sequence,
  );
  assert.notDeepEqual(
    Array.from({ length: 5 }, () => other()),
    sequence,
  );
  for (const value of sequence) assert.ok(Number.isInteger(value) && value >= 0 && value < 2 ** 32);
  assert.equal(new Set(sequence).size, sequence.length);
});

test('randomHypervector is bipolar, balanced, reproducible, and near-orthogonal across seeds', () => {
  const vector = randomHypervector('word:list');
  assert.equal(vector.length, HYPERVECTOR_DIMENSIONS);
  assert.ok(vector.every((entry) => entry === 1 || entry === -1));
  const positives = vector.filter((entry) => entry === 1).length;
  assert.ok(Math.abs(positives - HYPERVECTOR_DIMENSIONS / 2) < 150, `${positives} positives`);
  assert.deepEqual(randomHypervector('word:list'), vector);
  assert.ok(Math.abs(cosineSimilarity(vector, randomHypervector('word:find'))) < 0.1);
});

test('cosineSimilarity: itself 1, its negation -1, a zero vector 0', () => {
  const vector = randomHypervector('a');
  assert.equal(cosineSimilarity(vector, vector), 1);
  assert.equal(
    cosineSimilarity(
      vector,
      vector.map((entry) => -entry),
    ),
    -1,
  );
  assert.equal(cosineSimilarity(vector, new Int8Array(HYPERVECTOR_DIMENSIONS)), 0);
});

test('bind is its own inverse and hides its inputs', () => {
  const first = randomHypervector('first');
  const second = randomHypervector('second');
  const bound = bind(first, second);
  assert.deepEqual(bind(bound, second), first);
  assert.ok(Math.abs(cosineSimilarity(bound, first)) < 0.1);
  assert.ok(Math.abs(cosineSimilarity(bound, second)) < 0.1);
});

test('permute rotates: a full turn is the identity, one step is dissimilar', () => {
  const vector = randomHypervector('rotate me');
  const shifted = permute(vector, 1);
  assert.equal(shifted[1], vector[0]);
  assert.equal(shifted[0], vector[HYPERVECTOR_DIMENSIONS - 1]);
  assert.deepEqual(permute(vector, HYPERVECTOR_DIMENSIONS), vector);
  assert.ok(Math.abs(cosineSimilarity(shifted, vector)) < 0.1);
});

test('bundle stays similar to each input; ties are 0 unless a tie-breaker is given', () => {
  const parts = ['a', 'b', 'c'].map(randomHypervector);
  const three = bundle(parts);
  for (const part of parts) assert.ok(cosineSimilarity(three, part) > 0.4);
  assert.ok(Math.abs(cosineSimilarity(three, randomHypervector('d'))) < 0.1);

  const [first, second] = [parts[0]!, parts[1]!];
  const pair = bundle([first, second]);
  const tied = first.map((entry, index) => (entry !== second[index] ? 1 : 0));
  assert.ok(pair.every((entry, index) => (tied[index] === 1 ? entry === 0 : entry === first[index])));
  const broken = bundle([first, second], { tieBreaker: second });
  assert.ok(
    broken.every((entry, index) => (tied[index] === 1 ? entry === second[index] : entry === first[index])),
  );
});

test('normalizeWord strips common suffixes consistently', () => {
  const cases: Array<[string, string]> = [
    ['Lists', 'list'],
    ['listing', 'list'],
    ['listings', 'list'],
    ['listed', 'list'],
    ['create', 'creat'],
    ['creates', 'creat'],
    ['created', 'creat'],
    ['creating', 'creat'],
    ['matches', 'match'],
    ['queries', 'query'],
    ['queried', 'query'],
    ['stopped', 'stop'],
    ['added', 'add'],
    ['adds', 'add'],
    ['class', 'class'],
    ['classes', 'class'],
    ['status', 'status'],
    ['analysis', 'analysis'],
    ['the', 'the'],
    ['HTTP/2', 'http2'],
  ];
  for (const [word, stem] of cases) assert.equal(normalizeWord(word), stem, word);
});

test('tokenize splits on anything but letters and digits and stems each word', () => {
  assert.deepEqual(tokenize('Find all TODO-comments, then list them!'), [
    'find',
    'all',
    'todo',
    'comment',
    'then',
    'list',
    'them',
  ]);
  assert.deepEqual(tokenize('  ?! '), []);
});

test('trigrams encode letter order', () => {
  assert.deepEqual(encodeTrigram('abc'), encodeTrigram('abc'));
  assert.ok(Math.abs(cosineSimilarity(encodeTrigram('abc'), encodeTrigram('cba'))) < 0.1);
});

test('word forms with one stem share a vector; related forms land closer than unrelated words', () => {
  assert.deepEqual(encodeWord('listing'), encodeWord('list'));
  assert.deepEqual(encodeStem('list'), encodeWord('lists'));
  const related = cosineSimilarity(encodeWord('analyze'), encodeWord('analyse'));
  const unrelated = Math.abs(cosineSimilarity(encodeWord('analyze'), encodeWord('fetch')));
  assert.ok(related > 0.3, `related ${related}`);
  assert.ok(unrelated < 0.1, `unrelated ${unrelated}`);
});

test('encodeText is deterministic and orders similarity by shared words', () => {
  const text = 'find the TODO files';
  assert.deepEqual(encodeText(text), encodeText(text));
  const vector = encodeText(text);
  const ordered = ['finding todo file', 'find something', 'write a config'].map((other) =>
    cosineSimilarity(vector, encodeText(other)),
  );
  assert.ok(ordered[0]! > ordered[1]! && ordered[1]! > ordered[2]!, ordered.join(' > '));
  assert.ok(encodeText('').every((entry) => entry === 0));
});

test('encoding is pinned: a change here changes strategy scores recorded by running workflows', () => {
  // Replayed workflows re-run strategy selection, so the encoding must not drift between
  // releases. This fingerprint was computed once; update it only with a versioned migration.
  const fingerprint = hashString(Array.from(encodeText('find all TODO comments and list them')).join(','));
  assert.equal(fingerprint, PINNED_FINGERPRINT);
});

const PINNED_FINGERPRINT = 144038178;
