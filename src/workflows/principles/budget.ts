import { z } from 'zod';

/**
 * Per-goal budgets (principle 4, cost awareness). At configured fractions the model gets a
 * one-line meta note with the next tool result, so it can feel the cost it cannot compute itself;
 * at 100% the workflow ends the goal, whatever the model says. Pure: the workflow passes in what
 * was spent and remembers which warnings it already gave.
 */

export const BudgetDimension = {
  Tokens: 'tokens',
  Usd: 'usd',
  WallTime: 'wall-time',
  ToolCalls: 'tool-calls',
} as const;
export type BudgetDimension = (typeof BudgetDimension)[keyof typeof BudgetDimension];

/** Fixed order for evaluation and notes, so results are stable across replays. */
const dimensionsInOrder: readonly BudgetDimension[] = Object.values(BudgetDimension);

export const DEFAULT_WARN_AT: readonly number[] = [0.7, 0.9];

/** Every limit is optional; a goal with none set is unbudgeted. */
export const budgetSchema = z.lazy(() =>
  z.object({
    maxTokens: z.number().int().positive().optional(),
    maxUsd: z.number().positive().optional(),
    maxWallTimeMs: z.number().int().positive().optional(),
    maxToolCalls: z.number().int().positive().optional(),
    /** No default limit for this goal (`keel run --no-budget`): only the limits set here or by the worker. */
    unlimited: z.literal(true).optional(),
    /** maxTokens is keel's backstop: it counts only while the goal's cost cannot be priced (usd 0). */
    tokensUnpriced: z.literal(true).optional(),
    /** Fractions of each limit at which a note is given once; 1.0 itself means exhausted. */
    warnAt: z.array(z.number().gt(0).lt(1)).default(() => [...DEFAULT_WARN_AT]),
  }),
);
export type Budget = z.infer<typeof budgetSchema>;
export type BudgetInput = z.input<typeof budgetSchema>;

/**
 * The cost limit of every goal that sets no limit of its own and runs on a worker with no default
 * (issue 44), warned at 70% and 90% and then ended: a runaway whose turn limit a user raised for
 * long work stops at it. A cost, not a token count: a long goal's requests are mostly prompt-cache
 * reads at a tenth of the input price, so a token limit low enough to matter for runaways ended
 * real work (the bench's 50-turn cached goal passed 250,000 tokens at turn 23, for under $1).
 */
export const DEFAULT_MAX_USD = 5;
/**
 * The default's token backstop, for a model keel has no price for (its cost stays $0): far above
 * any 50-turn goal (50 turns of a 100k-token context are 5M), every token counted. Only then: with
 * prompt caching 10M tokens cost about $1 on a cheap model, so on a priced model it would end long
 * normal goals far below the cost default.
 */
export const DEFAULT_MAX_TOKENS = 10_000_000;

const limitKeys = ['maxTokens', 'maxUsd', 'maxWallTimeMs', 'maxToolCalls'] as const;

/** Whether the budget limits anything at all. */
export function hasLimit(budget: Budget | undefined): boolean {
  return budget !== undefined && limitKeys.some((key) => budget[key] !== undefined);
}

/**
 * The budget a goal runs under: its own limits, for each dimension it leaves open the worker's
 * default, and when neither limits cost or tokens, DEFAULT_MAX_USD (and its token backstop for an
 * unpriced model) beside any wall-time or tool-call limit — unless the goal asked for no default
 * (`unlimited`). A time or call limit bounds something else: a runaway can spend a lot within it.
 */
export function resolveBudget(own: Budget | undefined, worker: Budget | undefined): Budget | undefined {
  let merged: Budget | undefined = own;
  if (worker && !own) merged = worker;
  if (worker && own) {
    merged = { ...worker, warnAt: own.warnAt };
    for (const key of limitKeys) {
      const value = own[key];
      if (value !== undefined) merged[key] = value;
    }
    if (own.unlimited) merged.unlimited = true;
  }
  if (merged?.maxUsd !== undefined || merged?.maxTokens !== undefined || merged?.unlimited) return merged;
  return {
    ...merged,
    warnAt: merged?.warnAt ?? [...DEFAULT_WARN_AT],
    maxUsd: DEFAULT_MAX_USD,
    maxTokens: DEFAULT_MAX_TOKENS,
    tokensUnpriced: true,
  };
}

export interface BudgetSpent {
  /** All tokens of all model calls, cache included (see totalTokens in cost.ts). */
  tokens: number;
  usd: number;
  wallTimeMs: number;
  toolCalls: number;
}

export interface BudgetWarning {
  /** "<dimension>@<fraction>", e.g. "tokens@0.7": remember it so the warning is given once. */
  key: string;
  dimension: BudgetDimension;
  /** The configured fraction that was crossed. */
  fraction: number;
  /** The fraction actually used, spent / limit. */
  used: number;
  note: string;
}

/** How much of one dimension's limit is spent. */
export interface BudgetUse {
  dimension: BudgetDimension;
  spent: number;
  limit: number;
}

/** The dimension that reached its limit; the workflow ends the goal as budget_exhausted. */
export type BudgetExhaustion = BudgetUse;

export interface BudgetEvaluation {
  warnings: BudgetWarning[];
  exhausted?: BudgetExhaustion;
}

export interface EvaluateBudgetOptions {
  budget: Budget;
  spent: BudgetSpent;
  /** Keys of warnings given earlier in this goal. */
  alreadyWarned: readonly string[];
}

// Sums of float USD drift (0.1 + 0.2 > 0.3): a tiny tolerance keeps "exactly at the limit" exact.
const tolerance = 1e-9;

export function limitOf(budget: Budget, dimension: BudgetDimension, spent: BudgetSpent): number | undefined {
  switch (dimension) {
    case BudgetDimension.Tokens:
      // A goal whose cost is priced is bounded by the cost: the backstop is for unpriced models.
      return budget.tokensUnpriced && spent.usd > 0 ? undefined : budget.maxTokens;
    case BudgetDimension.Usd:
      return budget.maxUsd;
    case BudgetDimension.WallTime:
      return budget.maxWallTimeMs;
    case BudgetDimension.ToolCalls:
      return budget.maxToolCalls;
  }
}

function spentOf(spent: BudgetSpent, dimension: BudgetDimension): number {
  switch (dimension) {
    case BudgetDimension.Tokens:
      return spent.tokens;
    case BudgetDimension.Usd:
      return spent.usd;
    case BudgetDimension.WallTime:
      return spent.wallTimeMs;
    case BudgetDimension.ToolCalls:
      return spent.toolCalls;
  }
}

/** What is spent against each dimension that has a limit, in a fixed order. */
export function budgetUses(budget: Budget, spent: BudgetSpent): BudgetUse[] {
  return dimensionsInOrder.flatMap((dimension) => {
    const limit = limitOf(budget, dimension, spent);
    return limit === undefined || limit <= 0 ? [] : [{ dimension, spent: spentOf(spent, dimension), limit }];
  });
}

/**
 * New warnings (each fraction once per dimension; a jump past several fractions gives one warning
 * per fraction, and metaNoteLine shows the highest) and the first exhausted dimension, if any.
 */
export function evaluateBudget({ budget, spent, alreadyWarned }: EvaluateBudgetOptions): BudgetEvaluation {
  const warned = new Set(alreadyWarned);
  const fractions = [...new Set(budget.warnAt)].sort((left, right) => left - right);
  const warnings: BudgetWarning[] = [];
  let exhausted: BudgetExhaustion | undefined;
  for (const dimension of dimensionsInOrder) {
    const limit = limitOf(budget, dimension, spent);
    if (limit === undefined || limit <= 0) continue;
    const amount = spentOf(spent, dimension);
    const used = amount / limit;
    for (const fraction of fractions) {
      const key = `${dimension}@${fraction}`;
      if (used + tolerance >= fraction && !warned.has(key)) {
        warnings.push({
          key,
          dimension,
          fraction,
          used,
          note: budgetNote({ dimension, spent: amount, limit }),
        });
      }
    }
    if (exhausted === undefined && used + tolerance >= 1) exhausted = { dimension, spent: amount, limit };
  }
  return exhausted === undefined ? { warnings } : { warnings, exhausted };
}

/** 14000 → "14,000". Hand-rolled because locale formatting is not something to rely on in replay. */
export function formatInteger(value: number): string {
  const rounded = Math.round(value);
  const digits = String(Math.abs(rounded)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  return rounded < 0 ? `-${digits}` : digits;
}

/** "$0.42", "$1,234.50"; amounts under a cent keep 4 decimals ("$0.0042") so they do not read as $0. */
export function formatUsd(usd: number): string {
  const sign = usd < 0 ? '-' : '';
  const amount = Math.abs(usd);
  if (amount > 0 && amount < 0.01) return `${sign}$${amount.toFixed(4)}`;
  const [whole = '0', cents = '00'] = amount.toFixed(2).split('.');
  return `${sign}$${formatInteger(Number(whole))}.${cents}`;
}

/** "45s", "3m", "3m 30s", "1h 2m": coarse on purpose, a note for a model, not a stopwatch. */
export function formatElapsed(milliseconds: number): string {
  const seconds = Math.max(0, Math.floor(milliseconds / 1000));
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m ${seconds % 60}s`;
  const hours = Math.floor(minutes / 60);
  return minutes % 60 === 0 ? `${hours}h` : `${hours}h ${minutes % 60}m`;
}

/** One dimension's note, e.g. "token budget 70% used (14,000 of 20,000)". */
export function budgetNote({ dimension, spent, limit }: BudgetUse): string {
  const percent = `${Math.floor((spent / limit) * 100 + tolerance)}%`;
  switch (dimension) {
    case BudgetDimension.Tokens:
      return `token budget ${percent} used (${formatInteger(spent)} of ${formatInteger(limit)})`;
    case BudgetDimension.Usd:
      return `cost budget ${percent} used (${formatUsd(spent)} of ${formatUsd(limit)})`;
    case BudgetDimension.WallTime:
      return `time budget ${percent} used (elapsed ${formatElapsed(spent)} of ${formatElapsed(limit)})`;
    case BudgetDimension.ToolCalls:
      return `tool-call budget ${percent} used (${formatInteger(spent)} of ${formatInteger(limit)} calls)`;
  }
}

export const BUDGET_NOTE_PREFIX = '[budget] ';

/**
 * The single line appended to the next tool result, e.g.
 * "[budget] token budget 91% used (18,200 of 20,000); time budget 70% used (elapsed 3m 30s of 5m)".
 * One note per dimension (the highest fraction crossed); undefined when there is nothing to say.
 */
export function metaNoteLine(warnings: readonly BudgetWarning[]): string | undefined {
  const highest = new Map<BudgetDimension, BudgetWarning>();
  for (const warning of warnings) {
    const current = highest.get(warning.dimension);
    if (current === undefined || warning.fraction > current.fraction) highest.set(warning.dimension, warning);
  }
  const notes = dimensionsInOrder.flatMap((dimension) => {
    const warning = highest.get(dimension);
    return warning === undefined ? [] : [warning.note];
  });
  return notes.length === 0 ? undefined : `${BUDGET_NOTE_PREFIX}${notes.join('; ')}`;
}
