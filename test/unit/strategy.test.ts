import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cosineSimilarity, encodeWord, normalizeWord } from '../../src/workflows/planning/hypervector';
import {
  DEFAULT_STRATEGY,
  META_STRATEGY_INSTRUCTIONS,
  MetaStrategy,
  SIMILARITY_THRESHOLD,
  STRATEGY_ORDER,
  STRATEGY_PATTERNS,
  SelectionMethod,
  Strategy,
  WORD_RESONANCE_THRESHOLD,
  keywordHitCounts,
  metaStrategyForAttempt,
  selectStrategy,
  similarityScores,
} from '../../src/workflows/planning/strategy';

test('realistic goals dominated by one pattern are selected by similarity', () => {
  const cases: Array<[string, Strategy]> = [
    ['find all TODO comments and list them', Strategy.Knowledge],
    ['write a file that adds a config', Strategy.Creation],
    ['fetch the http endpoint and run the shell command', Strategy.External],
    ['why does the test fail? analyze and infer the cause', Strategy.Reasoning],
    ['compare these two modules and cluster similar functions', Strategy.Similarity],
  ];
  for (const [goal, expected] of cases) {
    const selection = selectStrategy({ goal });
    assert.equal(selection.strategy, expected, goal);
    assert.equal(selection.method, SelectionMethod.Similarity, goal);
    assert.ok(selection.scores[expected] >= SIMILARITY_THRESHOLD, goal);
  }
});

test('scores are shares of the goal resonance: 2 creation words and 1 external word', () => {
  const { scores } = selectStrategy({ goal: 'write a file that adds a config' });
  assert.ok(Math.abs(scores.creation - 2 / 3) < 1e-9, `${scores.creation}`);
  assert.ok(Math.abs(scores.external - 1 / 3) < 1e-9, `${scores.external}`);
  assert.equal(scores.knowledge + scores.reasoning + scores.similarity, 0);
});

test('success criteria count as goal text, and repeated words count once', () => {
  const withCriteria = selectStrategy({
    goal: 'the config module',
    successCriteria: ['create src/config.ts', 'write a test for it'],
  });
  assert.equal(withCriteria.strategy, Strategy.Creation);
  assert.equal(withCriteria.method, SelectionMethod.Similarity);
  assert.equal(selectStrategy({ goal: 'x', successCriteria: 'fetch the url' }).strategy, Strategy.External);
  // "write" three times would outweigh two knowledge words if repeats counted.
  const repeated = selectStrategy({ goal: 'write write write, find and list' });
  assert.equal(repeated.keywordHits.creation, 1);
  assert.equal(repeated.strategy, Strategy.Knowledge);
});

test('a word close to a keyword but not equal resonates by similarity alone', () => {
  // "research" is no keyword, yet shares most trigrams with "search".
  const selection = selectStrategy({ goal: 'research the codebase' });
  assert.equal(selection.keywordHits.knowledge, 0);
  assert.equal(selection.strategy, Strategy.Knowledge);
  assert.equal(selection.method, SelectionMethod.Similarity);
});

test('no pattern at the threshold: the keyword plurality wins', () => {
  // 2 knowledge words out of 4 strategy words: a share of 0.5, under 0.55.
  const selection = selectStrategy({ goal: 'find and list the file, then write it' });
  assert.ok(selection.scores.knowledge < SIMILARITY_THRESHOLD);
  assert.equal(selection.method, SelectionMethod.Keyword);
  assert.equal(selection.strategy, Strategy.Knowledge);
  assert.deepEqual(selection.keywordHits, {
    knowledge: 2,
    reasoning: 0,
    creation: 1,
    external: 1,
    similarity: 0,
  });
});

test('keyword ties go to the earlier pattern in 001 order', () => {
  const creationFirst = selectStrategy({ goal: 'write the file' });
  assert.equal(creationFirst.method, SelectionMethod.Keyword);
  assert.equal(creationFirst.strategy, Strategy.Creation);
  const externalFirst = selectStrategy({ goal: 'download similar' });
  assert.equal(externalFirst.strategy, Strategy.External);
});

test('a goal with no strategy words gets the documented default', () => {
  const selection = selectStrategy({ goal: 'blorp zint quax frobnicate' });
  assert.equal(selection.method, SelectionMethod.Default);
  assert.equal(selection.strategy, DEFAULT_STRATEGY);
  assert.equal(DEFAULT_STRATEGY, Strategy.Knowledge);
  assert.ok(STRATEGY_ORDER.every((strategy) => selection.scores[strategy] === 0));
  assert.ok(STRATEGY_ORDER.every((strategy) => selection.keywordHits[strategy] === 0));
});

test('similarityScores and keywordHitCounts take stemmed words', () => {
  assert.deepEqual(keywordHitCounts(['list', 'fetch', 'fetch']), {
    knowledge: 1,
    reasoning: 0,
    creation: 0,
    external: 2,
    similarity: 0,
  });
  assert.deepEqual(similarityScores([]), {
    knowledge: 0,
    reasoning: 0,
    creation: 0,
    external: 0,
    similarity: 0,
  });
  assert.equal(similarityScores(['similar']).similarity, 1);
});

test('selection is deterministic', () => {
  const goal = 'compare the http client with similar modules and write a summary';
  assert.deepEqual(selectStrategy({ goal }), selectStrategy({ goal }));
});

test('patterns keep 001 keywords, and no keyword resonates with another pattern', () => {
  assert.deepEqual(STRATEGY_PATTERNS.knowledge.keywords.slice(0, 7), [
    'find',
    'query',
    'search',
    'discover',
    'explore',
    'list',
    'identify',
  ]);
  assert.deepEqual(STRATEGY_PATTERNS.similarity.keywords.slice(0, 5), [
    'similar',
    'like',
    'related',
    'compare',
    'cluster',
  ]);
  const all = STRATEGY_ORDER.flatMap((strategy) =>
    STRATEGY_PATTERNS[strategy].keywords.map((keyword) => ({ strategy, keyword })),
  );
  assert.equal(new Set(all.map(({ keyword }) => normalizeWord(keyword))).size, all.length);
  for (const first of all) {
    for (const second of all) {
      if (first.strategy === second.strategy) continue;
      const similarity = cosineSimilarity(encodeWord(first.keyword), encodeWord(second.keyword));
      assert.ok(similarity < WORD_RESONANCE_THRESHOLD, `${first.keyword} ~ ${second.keyword}: ${similarity}`);
    }
  }
});

test('meta-strategy alternates with attempt parity', () => {
  assert.equal(metaStrategyForAttempt(0), MetaStrategy.ExploreFirst);
  assert.equal(metaStrategyForAttempt(1), MetaStrategy.ReasonFirst);
  assert.equal(metaStrategyForAttempt(2), MetaStrategy.ExploreFirst);
  assert.equal(metaStrategyForAttempt(3), MetaStrategy.ReasonFirst);
});

test('each meta-strategy has its own instruction', () => {
  assert.match(META_STRATEGY_INSTRUCTIONS['explore-first'], /^Explore first/);
  assert.match(META_STRATEGY_INSTRUCTIONS['reason-first'], /^Reason first/);
});
