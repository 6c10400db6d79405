import { z } from 'zod';

/**
 * Budgets carved, not copied (issue 47): a child goal runs on what its parent has left, and what
 * it spends counts as the parent's. Pure; the workflow passes in the parent's budget and spend.
 *
 * The budget, spend and result are typed by their shape here rather than imported: this module
 * stays out of the import closure of the measured budget code (scripts/mutation-changed.ts counts
 * every import), and principles/budget.ts's Budget and BudgetSpent are assignable to them.
 */

/** The limits of principles/budget.ts's Budget that a child is carved. */
export interface CarvableBudget {
  maxTokens?: number | undefined;
  maxUsd?: number | undefined;
  maxWallTimeMs?: number | undefined;
  maxToolCalls?: number | undefined;
  tokensUnpriced?: true | undefined;
  warnAt: number[];
}

/** principles/budget.ts's BudgetSpent. */
export interface BudgetSpent {
  tokens: number;
  usd: number;
  wallTimeMs: number;
  toolCalls: number;
}

/** The part of a goal's result (goal/lifecycle/result.ts) its spend is read from. */
export interface ChildResultSpend {
  usage: {
    inputTokens: number;
    outputTokens: number;
    cacheCreationInputTokens: number;
    cacheReadInputTokens: number;
  };
  counters: { toolCalls: number };
  stats: { usdEstimate: number };
}

/** What the children of a goal spent, added to its own spend wherever its budget is counted. */
export const childSpendSchema = z.lazy(() =>
  z.object({
    /** Children that ended, whatever their spend. */
    children: z.number().int().nonnegative(),
    tokens: z.number().int().nonnegative(),
    usd: z.number().nonnegative(),
    toolCalls: z.number().int().nonnegative(),
    /** Children whose spend could not be read back (no result in their failure): counted as 0. */
    unknown: z.number().int().nonnegative(),
  }),
);
export type ChildSpend = z.infer<typeof childSpendSchema>;

export const NO_CHILD_SPEND: ChildSpend = { children: 0, tokens: 0, usd: 0, toolCalls: 0, unknown: 0 };

/** A child's spend as its result tells it; undefined when the child left no result. */
export function spendOfChild(
  result: ChildResultSpend | undefined,
): Omit<BudgetSpent, 'wallTimeMs'> | undefined {
  if (result === undefined) return undefined;
  const usd = Number(result.stats.usdEstimate);
  const usage = result.usage;
  return {
    // All tokens, cache included, as principles/cost.ts's totalTokens counts them for the budget.
    tokens:
      usage.inputTokens + usage.outputTokens + usage.cacheCreationInputTokens + usage.cacheReadInputTokens,
    usd: Number.isFinite(usd) && usd > 0 ? usd : 0,
    toolCalls: result.counters.toolCalls,
  };
}

/** The parent's child spend after one more child ended. */
export function addChildSpend(
  before: ChildSpend | undefined,
  spent: Omit<BudgetSpent, 'wallTimeMs'> | undefined,
): ChildSpend {
  const total = before ?? NO_CHILD_SPEND;
  if (spent === undefined) return { ...total, children: total.children + 1, unknown: total.unknown + 1 };
  return {
    children: total.children + 1,
    tokens: total.tokens + spent.tokens,
    usd: total.usd + spent.usd,
    toolCalls: total.toolCalls + spent.toolCalls,
    unknown: total.unknown,
  };
}

/** The goal's own spend with its children's added (wall time is the parent's: children run inside it). */
export function withChildSpend(own: BudgetSpent, children: ChildSpend | undefined): BudgetSpent {
  if (children === undefined) return own;
  return {
    tokens: own.tokens + children.tokens,
    usd: own.usd + children.usd,
    wallTimeMs: own.wallTimeMs,
    toolCalls: own.toolCalls + children.toolCalls,
  };
}

export type CarvedBudget<B extends CarvableBudget> =
  | { kind: 'carved'; budget: B | undefined }
  /** Nothing is left of this dimension: no child is started. */
  | { kind: 'exhausted'; dimension: 'tokens' | 'usd' | 'wall-time' | 'tool-calls' };

/**
 * The budget a child starts with: each limit of the parent's budget less what the parent (and its
 * earlier children) spent, its warnings and flags as the parent's. A parent without a budget gives
 * its children none either (they take the worker's defaults, as any goal does).
 */
export function carveChildBudget<B extends CarvableBudget>(
  parent: B | undefined,
  spent: BudgetSpent,
): CarvedBudget<B> {
  if (parent === undefined) return { kind: 'carved', budget: undefined };
  const carved: B = { ...parent, warnAt: [...parent.warnAt] };
  const left = (limit: number | undefined, used: number) => (limit === undefined ? undefined : limit - used);
  const tokens = parent.tokensUnpriced && spent.usd > 0 ? undefined : left(parent.maxTokens, spent.tokens);
  const remaining = {
    tokens,
    usd: left(parent.maxUsd, spent.usd),
    'wall-time': left(parent.maxWallTimeMs, spent.wallTimeMs),
    'tool-calls': left(parent.maxToolCalls, spent.toolCalls),
  } as const;
  for (const dimension of ['tokens', 'usd', 'wall-time', 'tool-calls'] as const) {
    const value = remaining[dimension];
    // Integer limits round down: a child may not spend the fraction of a token it was not given.
    if (value !== undefined && (dimension === 'usd' ? value <= 0 : Math.floor(value) < 1)) {
      return { kind: 'exhausted', dimension };
    }
  }
  if (remaining.tokens !== undefined) carved.maxTokens = Math.floor(remaining.tokens);
  if (remaining.usd !== undefined) carved.maxUsd = remaining.usd;
  if (remaining['wall-time'] !== undefined) carved.maxWallTimeMs = Math.floor(remaining['wall-time']);
  if (remaining['tool-calls'] !== undefined) carved.maxToolCalls = Math.floor(remaining['tool-calls']);
  return { kind: 'carved', budget: carved };
}
