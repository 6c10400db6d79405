import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  budgetSchema,
  budgetUses,
  DEFAULT_MAX_TOKENS,
  DEFAULT_MAX_USD,
  evaluateBudget,
  hasLimit,
  resolveBudget,
  type Budget,
} from '../../src/workflows/principles/budget';
import { budgetInput, judgeInput } from '../../src/cli/budget-flags';
import { estimateUsd } from '../../src/workflows/principles/cost';
import { parseGoalInput } from '../../src/workflows/goal/lifecycle/input';

const budget = (input: Parameters<typeof budgetSchema.parse>[0]): Budget => budgetSchema.parse(input);

test('a goal with no limit on a worker with none gets the default cost budget, warned at 70% and 90%', () => {
  assert.deepEqual(resolveBudget(undefined, undefined), {
    maxUsd: DEFAULT_MAX_USD,
    maxTokens: DEFAULT_MAX_TOKENS,
    tokensUnpriced: true,
    warnAt: [0.7, 0.9],
  });
  // A budget that only sets its warnings still limits nothing: the default fills it, with those warnings.
  assert.deepEqual(resolveBudget(budget({ warnAt: [0.5] }), undefined), {
    maxUsd: DEFAULT_MAX_USD,
    maxTokens: DEFAULT_MAX_TOKENS,
    tokensUnpriced: true,
    warnAt: [0.5],
  });
});

test('the default sits between long real work and a runaway whose turn limit was raised', () => {
  const usd = (usage: Parameters<typeof estimateUsd>[0]['usage']) =>
    estimateUsd({ usage, model: 'claude-sonnet-4-6' }).usd;
  // 50 turns of a 60k-token context, mostly cache reads, 2k new tokens and 1k of answer a turn:
  // long real work stays under the first warning, and under the token backstop.
  const turns = 50;
  const longWork = {
    inputTokens: turns * 100,
    outputTokens: turns * 1_000,
    cacheCreationInputTokens: turns * 2_000,
    cacheReadInputTokens: turns * 60_000,
  };
  assert.ok(usd(longWork) < DEFAULT_MAX_USD * 0.7, `long work costs ${usd(longWork)}`);
  assert.ok(turns * 100_000 <= DEFAULT_MAX_TOKENS, 'the backstop is above 50 turns of a 100k context');
  // A runaway given 500 turns (its context held near 60k by the context budget) is ended.
  const runaway = {
    ...longWork,
    outputTokens: 500 * 1_000,
    cacheCreationInputTokens: 500 * 2_000,
    cacheReadInputTokens: 500 * 60_000,
  };
  assert.ok(usd(runaway) > DEFAULT_MAX_USD, `a 500-turn runaway costs ${usd(runaway)}`);
});

test('a cost or token limit of the goal or the worker replaces the default; the goal wins per dimension', () => {
  assert.deepEqual(resolveBudget(budget({ maxUsd: 2 }), undefined), { maxUsd: 2, warnAt: [0.7, 0.9] });
  assert.deepEqual(resolveBudget(undefined, budget({ maxTokens: 500 })), {
    maxTokens: 500,
    warnAt: [0.7, 0.9],
  });
  assert.deepEqual(
    resolveBudget(budget({ maxTokens: 10, warnAt: [0.5] }), budget({ maxTokens: 99, maxUsd: 3 })),
    {
      maxTokens: 10,
      maxUsd: 3,
      warnAt: [0.5],
    },
  );
});

test('a wall-time or tool-call limit alone keeps the default cost: a runaway spends a lot within it', () => {
  const standard = { maxUsd: DEFAULT_MAX_USD, maxTokens: DEFAULT_MAX_TOKENS, tokensUnpriced: true };
  // the worker's KEEL_BUDGET_MAX_WALL_TIME, and a goal's --max-wall-time
  assert.deepEqual(resolveBudget(undefined, budget({ maxWallTimeMs: 60_000 })), {
    ...standard,
    maxWallTimeMs: 60_000,
    warnAt: [0.7, 0.9],
  });
  assert.deepEqual(resolveBudget(budget({ maxWallTimeMs: 60_000, warnAt: [0.5] }), undefined), {
    ...standard,
    maxWallTimeMs: 60_000,
    warnAt: [0.5],
  });
  assert.deepEqual(resolveBudget(budget({ maxToolCalls: 40 }), budget({ maxWallTimeMs: 9 })), {
    ...standard,
    maxToolCalls: 40,
    maxWallTimeMs: 9,
    warnAt: [0.7, 0.9],
  });
  // with --no-budget, only the limits set
  assert.deepEqual(resolveBudget(budget({ maxToolCalls: 40, unlimited: true }), undefined), {
    maxToolCalls: 40,
    unlimited: true,
    warnAt: [0.7, 0.9],
  });
});

test('--no-budget (unlimited) removes the default only: the worker’s limits still apply', () => {
  const none = resolveBudget(budget({ unlimited: true }), undefined);
  assert.equal(hasLimit(none), false);
  assert.deepEqual(
    evaluateBudget({
      budget: none!,
      spent: { tokens: 10_000_000, usd: 99, wallTimeMs: 1e9, toolCalls: 999 },
      alreadyWarned: [],
    }),
    { warnings: [] },
  );
  assert.deepEqual(resolveBudget(budget({ unlimited: true }), budget({ maxUsd: 5 })), {
    maxUsd: 5,
    unlimited: true,
    warnAt: [0.7, 0.9],
  });
});

test('hasLimit: any one dimension limits; none, or only warnings, does not', () => {
  assert.equal(hasLimit(undefined), false);
  assert.equal(hasLimit(budget({})), false);
  for (const key of ['maxTokens', 'maxUsd', 'maxWallTimeMs', 'maxToolCalls'] as const)
    assert.equal(hasLimit(budget({ [key]: 5 })), true, key);
});

test('the default budget warns at 70% and 90% and ends the goal at 100%', () => {
  const standard = resolveBudget(undefined, undefined)!;
  const at = (tokens: number, alreadyWarned: string[] = []) =>
    evaluateBudget({
      budget: standard,
      spent: { tokens, usd: 0, wallTimeMs: 0, toolCalls: 0 },
      alreadyWarned,
    });
  assert.deepEqual(at(DEFAULT_MAX_TOKENS * 0.69).warnings, []);
  assert.deepEqual(
    at(DEFAULT_MAX_TOKENS * 0.7).warnings.map((warning) => warning.key),
    ['tokens@0.7'],
  );
  assert.deepEqual(
    at(DEFAULT_MAX_TOKENS * 0.9, ['tokens@0.7']).warnings.map((warning) => warning.key),
    ['tokens@0.9'],
  );
  assert.equal(at(DEFAULT_MAX_TOKENS - 1, ['tokens@0.7', 'tokens@0.9']).exhausted, undefined);
  assert.deepEqual(at(DEFAULT_MAX_TOKENS, ['tokens@0.7', 'tokens@0.9']).exhausted, {
    dimension: 'tokens',
    spent: DEFAULT_MAX_TOKENS,
    limit: DEFAULT_MAX_TOKENS,
  });
});

test('the token backstop is only for a goal keel cannot price: a priced goal is bounded by its cost', () => {
  const standard = resolveBudget(undefined, undefined)!;
  const spent = { tokens: DEFAULT_MAX_TOKENS * 2, usd: 1.2, wallTimeMs: 0, toolCalls: 0 };
  // 20M cached tokens on a cheap model: $1.20, no warning and no end
  assert.deepEqual(evaluateBudget({ budget: standard, spent, alreadyWarned: [] }), { warnings: [] });
  assert.deepEqual(budgetUses(standard, spent), [{ dimension: 'usd', spent: 1.2, limit: DEFAULT_MAX_USD }]);
  // the cost still ends it
  assert.equal(
    evaluateBudget({ budget: standard, spent: { ...spent, usd: DEFAULT_MAX_USD }, alreadyWarned: [] })
      .exhausted?.dimension,
    'usd',
  );
  // unpriced (cost $0): the backstop counts
  assert.equal(
    evaluateBudget({ budget: standard, spent: { ...spent, usd: 0 }, alreadyWarned: [] }).exhausted?.dimension,
    'tokens',
  );
  assert.deepEqual(budgetUses(standard, { ...spent, usd: 0 })[0], {
    dimension: 'tokens',
    spent: DEFAULT_MAX_TOKENS * 2,
    limit: DEFAULT_MAX_TOKENS,
  });
  // a token limit someone set counts whatever the price
  const set = budget({ maxTokens: 100 });
  assert.equal(
    evaluateBudget({ budget: set, spent: { ...spent, tokens: 100 }, alreadyWarned: [] }).exhausted?.dimension,
    'tokens',
  );
});

test('keel run flags: --no-budget asks for no default, --no-judge and --judge-model set the judge', () => {
  assert.equal(budgetInput({}), undefined);
  assert.deepEqual(budgetInput({ budget: true }), undefined);
  assert.deepEqual(budgetInput({ budget: false }), { unlimited: true });
  assert.deepEqual(budgetInput({ maxTokens: 5, maxUsd: 1, maxWallTime: 9 }), {
    maxTokens: 5,
    maxUsd: 1,
    maxWallTimeMs: 9,
  });
  assert.deepEqual(judgeInput({}), {});
  assert.deepEqual(judgeInput({ judge: true }), {});
  assert.deepEqual(judgeInput({ judge: false, judgeModel: 'claude-sonnet-4-5' }), {
    judge: { enabled: false, model: 'claude-sonnet-4-5' },
  });
  const parsed = parseGoalInput({
    goal: 'g',
    workspace: '/tmp',
    principles: { budget: budgetInput({ budget: false }) },
    ...judgeInput({ judge: false }),
  });
  assert.ok(parsed.ok);
  assert.equal(parsed.config.principles.budget?.unlimited, true);
  assert.equal(parsed.config.judge.enabled, false);
  // unlimited is only ever true: false would read as a request it is not.
  assert.equal(
    parseGoalInput({ goal: 'g', workspace: '/tmp', principles: { budget: { unlimited: false } } }).ok,
    false,
  );
});
