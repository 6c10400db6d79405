import {
  cosineSimilarity,
  encodeStem,
  encodeWord,
  normalizeWord,
  tokenize,
  type Hypervector,
} from './hypervector';

/**
 * Strategy selection (seed 001): which kind of work a goal is, decided deterministically in
 * workflow code from the goal text and success criteria. The plan prompt tells the model the
 * strategy; the workflow records the scores so a reader can see why it was chosen.
 */
export const Strategy = {
  Knowledge: 'knowledge',
  Reasoning: 'reasoning',
  Creation: 'creation',
  External: 'external',
  Similarity: 'similarity',
} as const;
export type Strategy = (typeof Strategy)[keyof typeof Strategy];

/** The fixed order of 001's table; it breaks every tie, so selection never depends on chance. */
export const STRATEGY_ORDER: readonly Strategy[] = [
  Strategy.Knowledge,
  Strategy.Reasoning,
  Strategy.Creation,
  Strategy.External,
  Strategy.Similarity,
];

export interface StrategyPattern {
  /** 001's keywords first, then a few close synonyms; no word appears in two patterns. */
  readonly keywords: readonly string[];
  /** 001's "when selected", reused in the plan prompt. */
  readonly description: string;
}

export const STRATEGY_PATTERNS: Readonly<Record<Strategy, StrategyPattern>> = {
  knowledge: {
    keywords: [
      'find',
      'query',
      'search',
      'discover',
      'explore',
      'list',
      'identify',
      'locate',
      'look',
      'grep',
      'read',
      'inspect',
    ],
    description: 'the goal is about finding information',
  },
  reasoning: {
    keywords: [
      'reason',
      'infer',
      'deduce',
      'classify',
      'analyze',
      'why',
      'analyse',
      'explain',
      'diagnose',
      'conclude',
    ],
    description: 'the goal requires logical derivation',
  },
  creation: {
    keywords: [
      'create',
      'add',
      'build',
      'connect',
      'link',
      'store',
      'write',
      'make',
      'generate',
      'implement',
      'save',
      'insert',
    ],
    description: 'the goal is about constructing something new',
  },
  external: {
    keywords: [
      'file',
      'http',
      'command',
      'shell',
      'fetch',
      'download',
      'url',
      'api',
      'run',
      'execute',
      'request',
    ],
    description: 'the goal involves external data: files, the network or commands',
  },
  similarity: {
    keywords: ['similar', 'like', 'related', 'compare', 'cluster', 'resemble', 'alike', 'group', 'duplicate'],
    description: 'the goal is about finding relationships',
  },
};

/** A pattern must own at least this share of the goal's strategy words to win by similarity. */
export const SIMILARITY_THRESHOLD = 0.55;

/**
 * A goal word counts for a pattern only when its hypervector is at least this close to one of the
 * pattern's keywords. The same stem scores 1; related forms sharing most trigrams ("analyze" /
 * "analyse") score about 0.4; unrelated words about 0 ± 0.05. Below it a word is noise.
 */
export const WORD_RESONANCE_THRESHOLD = 0.4;

/** When neither similarity nor keywords say anything, a goal starts by finding things out. */
export const DEFAULT_STRATEGY: Strategy = Strategy.Knowledge;

export const SelectionMethod = { Similarity: 'similarity', Keyword: 'keyword', Default: 'default' } as const;
export type SelectionMethod = (typeof SelectionMethod)[keyof typeof SelectionMethod];

export interface StrategySelection {
  strategy: Strategy;
  method: SelectionMethod;
  /** Each pattern's share of the goal's resonance, in [0, 1] (see `similarityScores`). */
  scores: Record<Strategy, number>;
  /** Exact keyword hits per pattern, the fallback's evidence. */
  keywordHits: Record<Strategy, number>;
}

/**
 * Picks the goal's strategy: the best similarity score at or above the threshold; else the
 * pattern with most keyword hits; else the default. Ties go to the earlier pattern in 001's order.
 */
export function selectStrategy(options: {
  goal: string;
  successCriteria?: string | readonly string[];
}): StrategySelection {
  const criteria =
    typeof options.successCriteria === 'string' ? [options.successCriteria] : (options.successCriteria ?? []);
  const words = [...new Set(tokenize([options.goal, ...criteria].join('\n')))];
  const scores = similarityScores(words);
  const keywordHits = keywordHitCounts(words);

  const bySimilarity = best(scores);
  if (bySimilarity !== undefined && scores[bySimilarity] >= SIMILARITY_THRESHOLD) {
    return { strategy: bySimilarity, method: SelectionMethod.Similarity, scores, keywordHits };
  }
  const byKeyword = best(keywordHits);
  if (byKeyword !== undefined && keywordHits[byKeyword] > 0) {
    return { strategy: byKeyword, method: SelectionMethod.Keyword, scores, keywordHits };
  }
  return { strategy: DEFAULT_STRATEGY, method: SelectionMethod.Default, scores, keywordHits };
}

/**
 * Why not one cosine between the goal's bundle and each pattern's bundle: bundling dilutes. One
 * keyword against the 12-keyword Knowledge bundle gives a cosine of about 0.26, and a goal's other
 * words (stop words, file names) push it lower: "find all TODO comments and list them" scores
 * 0.16 against Knowledge, so a 0.55 threshold would essentially never fire.
 *
 * Instead each distinct goal word is compared with every keyword on its own (max over keywords):
 * its resonance with a pattern is that maximum cosine, kept only at or above
 * WORD_RESONANCE_THRESHOLD. Words resonating with no pattern are ignored, and a pattern's score is
 * its share of the goal's total resonance (each word counting its best pattern's value). A goal
 * made of one pattern's words scores 1 for it; an evenly mixed goal gives each at most 0.5, stays
 * under the threshold, and is left to the keyword fallback. Above 0.5 only one pattern can win.
 */
export function similarityScores(words: readonly string[]): Record<Strategy, number> {
  const resonance = zeroRecord();
  let total = 0;
  for (const word of words) {
    const vector = encodeStem(word);
    let strongest = 0;
    for (const strategy of STRATEGY_ORDER) {
      let closest = 0;
      for (const keywordVector of keywordVectors()[strategy]) {
        closest = Math.max(closest, cosineSimilarity(vector, keywordVector));
      }
      if (closest >= WORD_RESONANCE_THRESHOLD) {
        resonance[strategy] += closest;
        strongest = Math.max(strongest, closest);
      }
    }
    total += strongest;
  }
  const scores = zeroRecord();
  if (total === 0) return scores;
  for (const strategy of STRATEGY_ORDER) scores[strategy] = resonance[strategy] / total;
  return scores;
}

/** How many of the (distinct, normalized) words are exactly one of each pattern's keywords. */
export function keywordHitCounts(words: readonly string[]): Record<Strategy, number> {
  const hits = zeroRecord();
  for (const word of words) {
    for (const strategy of STRATEGY_ORDER) {
      if (keywordStems()[strategy].has(word)) hits[strategy] += 1;
    }
  }
  return hits;
}

/** Highest value; the first in STRATEGY_ORDER wins a tie. */
function best(values: Record<Strategy, number>): Strategy | undefined {
  let winner: Strategy | undefined;
  for (const strategy of STRATEGY_ORDER) {
    if (winner === undefined || values[strategy] > values[winner]) winner = strategy;
  }
  return winner;
}

function zeroRecord(): Record<Strategy, number> {
  return { knowledge: 0, reasoning: 0, creation: 0, external: 0, similarity: 0 };
}

// Keyword vectors and stems are computed once per worker: pure memoization, safe under replay.
let cachedVectors: Record<Strategy, Hypervector[]> | undefined;
let cachedStems: Record<Strategy, Set<string>> | undefined;

function keywordVectors(): Record<Strategy, Hypervector[]> {
  cachedVectors ??= mapPatterns((keywords) => keywords.map(encodeWord));
  return cachedVectors;
}

function keywordStems(): Record<Strategy, Set<string>> {
  cachedStems ??= mapPatterns((keywords) => new Set(keywords.map(normalizeWord)));
  return cachedStems;
}

function mapPatterns<T>(map: (keywords: readonly string[]) => T): Record<Strategy, T> {
  return {
    knowledge: map(STRATEGY_PATTERNS.knowledge.keywords),
    reasoning: map(STRATEGY_PATTERNS.reasoning.keywords),
    creation: map(STRATEGY_PATTERNS.creation.keywords),
    external: map(STRATEGY_PATTERNS.external.keywords),
    similarity: map(STRATEGY_PATTERNS.similarity.keywords),
  };
}

/** Seed 001's alternating meta-strategies: the attempt's parity flips the order of work. */
export const MetaStrategy = { ExploreFirst: 'explore-first', ReasonFirst: 'reason-first' } as const;
export type MetaStrategy = (typeof MetaStrategy)[keyof typeof MetaStrategy];

/** Even attempts (0, 2, …) explore first; odd attempts reason first, so a backtrack changes approach. */
export function metaStrategyForAttempt(attempt: number): MetaStrategy {
  return attempt % 2 === 0 ? MetaStrategy.ExploreFirst : MetaStrategy.ReasonFirst;
}

/** The instruction the plan prompt gives for each meta-strategy. */
export const META_STRATEGY_INSTRUCTIONS: Readonly<Record<MetaStrategy, string>> = {
  'explore-first':
    'Explore first: begin with steps that gather knowledge from the workspace — list, search and ' +
    'read what is actually there — and only then reason over what you found to decide and make ' +
    'changes. Prefer cheap read-only steps early so later steps rest on observed facts rather ' +
    'than assumptions.',
  'reason-first':
    'Reason first: begin by recalling what is already known from earlier attempts and this ' +
    'conversation, reason about the likely cause or solution, and state it; then gather only the ' +
    'specific knowledge needed to confirm or refute that reasoning before acting. Do not repeat ' +
    'broad exploration that was already done.',
};
