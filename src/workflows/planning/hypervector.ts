/**
 * A small vector-symbolic (hypervector) encoding of words and texts, used by strategy selection.
 *
 * Why deterministic: it runs in workflow code, which Temporal replays from history on any worker,
 * so the same text must give the same vector on every run and machine. Randomness therefore comes
 * from a seeded PRNG (mulberry32) seeded by an FNV-1a hash of a string, never from Math.random,
 * and all arithmetic is on small integers until the single division in the cosine.
 *
 * Encoding:
 * - each letter has a pseudo-random bipolar (+1/-1) vector;
 * - a character trigram is the binding (element-wise product) of its three letter vectors, each
 *   rotated by its position, so "abc" and "cba" differ;
 * - a word is the bundle (sum, then sign) of its own identity vector and the trigrams of
 *   "#stem#", so word forms sharing a stem are identical and words sharing trigrams land close;
 * - a text is the bundle of its words.
 */

/** Enough dimensions that unrelated vectors are near-orthogonal (|cosine| ~ 1/sqrt(2048) ~ 0.02). */
export const HYPERVECTOR_DIMENSIONS = 2048;

/** A vector of +1/-1 entries (a bundle of an even count may also hold 0 where votes tie). */
export type Hypervector = Int8Array;

/** FNV-1a, 32 bits: a tiny, well-spread string hash used only as a PRNG seed. */
export function hashString(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** mulberry32: a seeded PRNG returning unsigned 32-bit integers; same seed, same sequence. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let value = state;
    value = Math.imul(value ^ (value >>> 15), value | 1);
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61);
    return (value ^ (value >>> 14)) >>> 0;
  };
}

/** A pseudo-random bipolar vector determined entirely by `seed` (one PRNG draw gives 32 entries). */
export function randomHypervector(seed: string): Hypervector {
  const next = seededRandom(hashString(seed));
  const vector = new Int8Array(HYPERVECTOR_DIMENSIONS);
  for (let offset = 0; offset < HYPERVECTOR_DIMENSIONS; offset += 32) {
    const bits = next();
    for (let bit = 0; bit < 32 && offset + bit < HYPERVECTOR_DIMENSIONS; bit++) {
      vector[offset + bit] = (bits >>> bit) & 1 ? 1 : -1;
    }
  }
  return vector;
}

/** Binding: element-wise product. The result is dissimilar to both inputs and reversible. */
export function bind(first: Hypervector, second: Hypervector): Hypervector {
  const result = new Int8Array(first.length);
  for (let index = 0; index < first.length; index++) {
    result[index] = (first[index] ?? 0) * (second[index] ?? 0);
  }
  return result;
}

/** Permutation by rotation: encodes position (a rotated vector is dissimilar to the original). */
export function permute(vector: Hypervector, shift: number): Hypervector {
  const length = vector.length;
  const result = new Int8Array(length);
  for (let index = 0; index < length; index++) {
    result[(index + shift) % length] = vector[index] ?? 0;
  }
  return result;
}

/**
 * Bundling: element-wise majority vote (sum, then sign). The result stays similar to every input.
 * A tied entry takes the tie-breaker's value when one is given, else 0: without one, the bundle
 * stays symmetric in its inputs instead of favouring an arbitrary one.
 */
export function bundle(
  vectors: readonly Hypervector[],
  options: { tieBreaker?: Hypervector } = {},
): Hypervector {
  const sums = new Int32Array(HYPERVECTOR_DIMENSIONS);
  for (const vector of vectors) {
    for (let index = 0; index < HYPERVECTOR_DIMENSIONS; index++) sums[index]! += vector[index] ?? 0;
  }
  const result = new Int8Array(HYPERVECTOR_DIMENSIONS);
  for (let index = 0; index < HYPERVECTOR_DIMENSIONS; index++) {
    const sum = sums[index] ?? 0;
    result[index] = sum > 0 ? 1 : sum < 0 ? -1 : (options.tieBreaker?.[index] ?? 0);
  }
  return result;
}

/** Cosine similarity in [-1, 1]; 0 when either vector is all zeros (e.g. an empty text). */
export function cosineSimilarity(first: Hypervector, second: Hypervector): number {
  let dot = 0;
  let firstNorm = 0;
  let secondNorm = 0;
  for (let index = 0; index < first.length; index++) {
    const a = first[index] ?? 0;
    const b = second[index] ?? 0;
    dot += a * b;
    firstNorm += a * a;
    secondNorm += b * b;
  }
  if (firstNorm === 0 || secondNorm === 0) return 0;
  return dot / Math.sqrt(firstNorm * secondNorm);
}

const SHORTEST_STEM = 3;

/**
 * A light suffix-stripping stemmer, so "lists", "listing" and "listed" meet "list". It is not
 * linguistically complete; it only has to be consistent, and trigram binding absorbs the rest.
 * Rules, in order: plurals (-ies → -y; -s, but not -ss/-us/-is); then -ied → -y, or -ing/-ed
 * (undoubling "stopp" → "stop"); otherwise a trailing -e, so "create", "creates" and "created"
 * all give "creat" and "matches" gives "match". Not idempotent ("analyse" → "analys" → "analy"):
 * stem a word once.
 */
export function normalizeWord(word: string): string {
  let stem = word.toLowerCase().replace(/[^a-z0-9]/g, '');
  if (stem.length <= SHORTEST_STEM) return stem;
  if (stem.endsWith('ies')) return `${stem.slice(0, -3)}y`;
  if (/[^sui]s$/.test(stem)) stem = stem.slice(0, -1);
  if (stem.endsWith('ied') && stem.length > 4) return `${stem.slice(0, -3)}y`;
  for (const suffix of ['ing', 'ed']) {
    if (stem.endsWith(suffix) && stem.length - suffix.length >= SHORTEST_STEM) {
      return undouble(stem.slice(0, -suffix.length));
    }
  }
  if (stem.endsWith('e') && stem.length > SHORTEST_STEM) stem = stem.slice(0, -1);
  return stem;
}

/** "stopp" → "stop", "inferr" → "infer"; keeps ll/ss/zz ("call", "pass") and short stems ("add"). */
function undouble(stem: string): string {
  const last = stem.at(-1) ?? '';
  if (stem.length >= 4 && last === stem.at(-2) && !'lsz'.includes(last)) return stem.slice(0, -1);
  return stem;
}

/** The normalized words of a text, in order (split on anything that is not a letter or digit). */
export function tokenize(text: string): string[] {
  return text
    .split(/[^A-Za-z0-9]+/)
    .map(normalizeWord)
    .filter((word) => word.length > 0);
}

// Memoized because every trigram needs three letter vectors; a pure cache cannot break replay.
const letterVectors = new Map<string, Hypervector>();

function letterVector(letter: string): Hypervector {
  let vector = letterVectors.get(letter);
  if (vector === undefined) {
    vector = randomHypervector(`letter:${letter}`);
    letterVectors.set(letter, vector);
  }
  return vector;
}

/**
 * A trigram as bound, position-rotated letters: permute(a, 2) * permute(b, 1) * c. Computed in one
 * pass (the same result as composing bind and permute) because it runs for every trigram of a text.
 */
export function encodeTrigram(trigram: string): Hypervector {
  const [first = '', second = '', third = ''] = [...trigram];
  const [a, b, c] = [letterVector(first), letterVector(second), letterVector(third)];
  const size = HYPERVECTOR_DIMENSIONS;
  const result = new Int8Array(size);
  for (let index = 0; index < size; index++) {
    result[index] =
      (a[(index - 2 + size) % size] ?? 0) * (b[(index - 1 + size) % size] ?? 0) * (c[index] ?? 0);
  }
  return result;
}

/**
 * A word's vector: its identity vector bundled with the trigrams of "#stem#". The identity both
 * makes an exact stem match score 1 above any partial one and breaks ties in the vote.
 */
export function encodeWord(word: string): Hypervector {
  return encodeStem(normalizeWord(word));
}

/** Encodes an already-stemmed word (from `tokenize`); stemming twice would change it. */
export function encodeStem(stem: string): Hypervector {
  const identity = randomHypervector(`word:${stem}`);
  const padded = `#${stem}#`;
  const parts = [identity];
  for (let index = 0; index + 3 <= padded.length; index++)
    parts.push(encodeTrigram(padded.slice(index, index + 3)));
  return bundle(parts, { tieBreaker: identity });
}

/** A text's vector: the bundle of its words' vectors; all zeros when the text has no words. */
export function encodeText(text: string): Hypervector {
  return bundle(tokenize(text).map(encodeStem));
}
