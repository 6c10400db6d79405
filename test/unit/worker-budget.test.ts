import { test } from 'node:test';
import assert from 'node:assert/strict';
import { budgetFromEnv, workerDefaultsFromEnv } from '../../src/activities/worker-defaults';
import { budgetLines } from '../../src/cli/budget-lines';
import { buildProgram } from '../../src/cli/main';
import { newGoalState } from '../../src/workflows/goal/lifecycle/start';
import { effectiveBudget } from '../../src/workflows/goal/views/status';
import { DEFAULT_MAX_TOKENS, DEFAULT_MAX_USD } from '../../src/workflows/principles/budget';

test('KEEL_BUDGET_* make a default budget; unset makes none; bad values stop the worker', () => {
  assert.equal(budgetFromEnv({}), undefined);
  assert.deepEqual(
    budgetFromEnv({
      KEEL_BUDGET_MAX_USD: '2.5',
      KEEL_BUDGET_MAX_TOKENS: '100000',
      KEEL_BUDGET_MAX_WALL_TIME: '30m',
    }),
    { maxUsd: 2.5, maxTokens: 100_000, maxWallTimeMs: 1_800_000, warnAt: [0.7, 0.9] },
  );
  assert.deepEqual(workerDefaultsFromEnv({ KEEL_BUDGET_MAX_TOKENS: '5000' }, false), {
    ledgerSinks: false,
    budget: { maxTokens: 5000, warnAt: [0.7, 0.9] },
  });
  assert.throws(
    () => budgetFromEnv({ KEEL_BUDGET_MAX_USD: 'lots' }),
    /KEEL_BUDGET_MAX_USD must be a positive number/,
  );
  assert.throws(() => budgetFromEnv({ KEEL_BUDGET_MAX_TOKENS: '1.5' }), /KEEL_BUDGET_MAX_TOKENS/);
  assert.throws(() => budgetFromEnv({ KEEL_BUDGET_MAX_WALL_TIME: '10' }), /a duration such as 90s/);
});

test('the goal’s own limits win per dimension; the worker fills the ones it leaves open', () => {
  const state = newGoalState({
    goal: 'g',
    workspace: '/tmp',
    principles: { budget: { maxUsd: 1, warnAt: [0.5] } },
  });
  assert.deepEqual(effectiveBudget(state), { maxUsd: 1, warnAt: [0.5] });
  state.workerDefaults = { ledgerSinks: false, budget: { maxUsd: 5, maxTokens: 9000, warnAt: [0.7, 0.9] } };
  assert.deepEqual(effectiveBudget(state), { maxUsd: 1, maxTokens: 9000, warnAt: [0.5] });
  const unbudgeted = newGoalState({ goal: 'g', workspace: '/tmp' });
  // Neither the goal nor the worker limits cost: keel's default cost, with its token backstop for an unpriced model (issue 44).
  assert.deepEqual(effectiveBudget(unbudgeted), {
    maxUsd: DEFAULT_MAX_USD,
    maxTokens: DEFAULT_MAX_TOKENS,
    tokensUnpriced: true,
    warnAt: [0.7, 0.9],
  });
  unbudgeted.workerDefaults = { ledgerSinks: false, budget: { maxTokens: 9000, warnAt: [0.7] } };
  assert.deepEqual(effectiveBudget(unbudgeted), { maxTokens: 9000, warnAt: [0.7] });
});

test('keel status prints each budget dimension with what is spent', () => {
  assert.deepEqual(
    budgetLines({
      budget: [
        { dimension: 'usd', spent: 0.12, limit: 2 },
        { dimension: 'tokens', spent: 40_000, limit: 100_000 },
        { dimension: 'wall-time', spent: 90_000, limit: 1_800_000 },
      ],
    }),
    ['budget: usd 0.12 USD of 2.00 USD (6%); tokens 40,000 of 100,000 (40%); wall-time 1m 30s of 30m (5%)'],
  );
  assert.match(budgetLines({})[0] ?? '', /budget: none/);
});

test('keel run: --max-usd, --max-tokens and --max-wall-time are refused when malformed', async () => {
  for (const args of [
    ['--max-usd', 'free'],
    ['--max-tokens', '0'],
    ['--max-wall-time', 'forever'],
  ]) {
    const program = buildProgram();
    program.configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
    await assert.rejects(program.parseAsync(['run', 'a goal', ...args], { from: 'user' }), /must be/);
  }
});
