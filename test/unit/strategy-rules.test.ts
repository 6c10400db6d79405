import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  META_STRATEGY_INSTRUCTIONS,
  MetaStrategy,
  STRATEGY_ORDER,
  STRATEGY_PATTERNS,
  SelectionMethod,
  Strategy,
  selectStrategy,
  type StrategySelection,
} from '../../src/workflows/planning/strategy';

/**
 * Strategy selection's rules at their edges (issue 27: mutation testing): strategy.test.ts shows
 * realistic goals chosen; these pin every keyword, the 0.55 threshold hit exactly, the words the
 * ledger records, and the text the plan prompt gives the model.
 */

const zero = { knowledge: 0, reasoning: 0, creation: 0, external: 0, similarity: 0 };

test('the names the ledger records are fixed words', () => {
  assert.deepEqual(Strategy, {
    Knowledge: 'knowledge',
    Reasoning: 'reasoning',
    Creation: 'creation',
    External: 'external',
    Similarity: 'similarity',
  });
  assert.deepEqual(STRATEGY_ORDER, ['knowledge', 'reasoning', 'creation', 'external', 'similarity']);
  assert.deepEqual(SelectionMethod, { Similarity: 'similarity', Keyword: 'keyword', Default: 'default' });
  assert.deepEqual(MetaStrategy, { ExploreFirst: 'explore-first', ReasonFirst: 'reason-first' });
});

test('every keyword alone is a goal of its pattern: one hit, a share of 1, chosen by similarity', () => {
  const counted = STRATEGY_ORDER.reduce(
    (sum, strategy) => sum + STRATEGY_PATTERNS[strategy].keywords.length,
    0,
  );
  assert.equal(counted, 54);
  for (const strategy of STRATEGY_ORDER) {
    for (const keyword of STRATEGY_PATTERNS[strategy].keywords) {
      const expected: StrategySelection = {
        strategy,
        method: 'similarity',
        scores: { ...zero, [strategy]: 1 },
        keywordHits: { ...zero, [strategy]: 1 },
      };
      assert.deepEqual(selectStrategy({ goal: keyword }), expected, keyword);
    }
  }
});

test('a share of exactly 0.55 wins by similarity; 0.5 falls back to keywords, the tie to the earlier pattern', () => {
  const knowledge = STRATEGY_PATTERNS.knowledge.keywords;
  const creation = STRATEGY_PATTERNS.creation.keywords;
  // 11 knowledge words and 9 creation words, each resonating 1 with its own pattern only: 11 / 20.
  assert.deepEqual(selectStrategy({ goal: [...knowledge.slice(0, 11), ...creation.slice(0, 9)].join(' ') }), {
    strategy: 'knowledge',
    method: 'similarity',
    scores: { ...zero, knowledge: 0.55, creation: 0.45 },
    keywordHits: { ...zero, knowledge: 11, creation: 9 },
  });
  // 10 and 10: 0.5 each, under the threshold; the keyword counts tie, and knowledge comes first.
  assert.deepEqual(
    selectStrategy({ goal: [...creation.slice(0, 10), ...knowledge.slice(0, 10)].join(' ') }),
    {
      strategy: 'knowledge',
      method: 'keyword',
      scores: { ...zero, knowledge: 0.5, creation: 0.5 },
      keywordHits: { ...zero, knowledge: 10, creation: 10 },
    },
  );
});

test('no strategy word at all: the default, knowledge, with every score and hit 0', () => {
  assert.deepEqual(selectStrategy({ goal: 'blorp zint quax' }), {
    strategy: 'knowledge',
    method: 'default',
    scores: zero,
    keywordHits: zero,
  });
});

test("a criterion's first word is a word of its own, not glued to the goal's last word", () => {
  assert.deepEqual(selectStrategy({ goal: 'blorp', successCriteria: ['fetch it'] }), {
    strategy: 'external',
    method: 'similarity',
    scores: { ...zero, external: 1 },
    keywordHits: { ...zero, external: 1 },
  });
  assert.equal(selectStrategy({ goal: 'blorp', successCriteria: 'fetch it' }).strategy, 'external');
});

test('each pattern is described to the model as 001 says when it is selected', () => {
  assert.deepEqual(
    STRATEGY_ORDER.map((strategy) => STRATEGY_PATTERNS[strategy].description),
    [
      'the goal is about finding information',
      'the goal requires logical derivation',
      'the goal is about constructing something new',
      'the goal involves external data: files, the network or commands',
      'the goal is about finding relationships',
    ],
  );
});

test('the meta-strategy instructions, to the word', () => {
  assert.deepEqual(META_STRATEGY_INSTRUCTIONS, {
    'explore-first':
      'Explore first: begin with steps that gather knowledge from the workspace — list, search and read ' +
      'what is actually there — and only then reason over what you found to decide and make changes. ' +
      'Prefer cheap read-only steps early so later steps rest on observed facts rather than assumptions.',
    'reason-first':
      'Reason first: begin by recalling what is already known from earlier attempts and this ' +
      'conversation, reason about the likely cause or solution, and state it; then gather only the ' +
      'specific knowledge needed to confirm or refute that reasoning before acting. Do not repeat broad ' +
      'exploration that was already done.',
  });
});
