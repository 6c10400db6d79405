import { z } from 'zod';

/**
 * Token and money cost of model calls (principle 4, cost awareness). The workflow sums usage per
 * goal and estimates USD from a price table, so budgets and stats need no I/O.
 */

const tokenCount = z.number().int().nonnegative().default(0);

/** Tokens of one model call, or a running total. Cache fields are 0 when caching was not used. */
export const tokenUsageSchema = z.lazy(() =>
  z.object({
    inputTokens: tokenCount,
    outputTokens: tokenCount,
    cacheCreationInputTokens: tokenCount,
    cacheReadInputTokens: tokenCount,
    /** The part of cacheCreationInputTokens written with the 1-hour TTL (priced higher). */
    cacheCreation1hInputTokens: z.number().int().nonnegative().optional(),
  }),
);
export type TokenUsage = z.infer<typeof tokenUsageSchema>;

export const EMPTY_USAGE: TokenUsage = Object.freeze({
  inputTokens: 0,
  outputTokens: 0,
  cacheCreationInputTokens: 0,
  cacheReadInputTokens: 0,
});

export function addUsage(total: TokenUsage, more: TokenUsage): TokenUsage {
  return {
    inputTokens: total.inputTokens + more.inputTokens,
    outputTokens: total.outputTokens + more.outputTokens,
    cacheCreationInputTokens: total.cacheCreationInputTokens + more.cacheCreationInputTokens,
    cacheReadInputTokens: total.cacheReadInputTokens + more.cacheReadInputTokens,
    // Optional: usage from before 1-hour cache writes were counted has no such field.
    ...(total.cacheCreation1hInputTokens === undefined && more.cacheCreation1hInputTokens === undefined
      ? {}
      : {
          cacheCreation1hInputTokens:
            (total.cacheCreation1hInputTokens ?? 0) + (more.cacheCreation1hInputTokens ?? 0),
        }),
  };
}

/** Input tokens of every kind: sent uncached, written to the cache, read from it. */
export function inputTokensOfAllKinds(usage: TokenUsage): number {
  return usage.inputTokens + usage.cacheCreationInputTokens + usage.cacheReadInputTokens;
}

/** The share of input tokens read from the prompt cache (0 when nothing was sent). */
export function cacheHitRate(usage: TokenUsage): number {
  const input = inputTokensOfAllKinds(usage);
  return input === 0 ? 0 : usage.cacheReadInputTokens / input;
}

/** Every token the call processed, cached or not: what a token budget counts. */
export function totalTokens(usage: TokenUsage): number {
  return usage.inputTokens + usage.outputTokens + usage.cacheCreationInputTokens + usage.cacheReadInputTokens;
}

/**
 * The usage object of the Messages API (snake_case, cache fields may be null or missing). Typed
 * structurally so workflow code does not import the SDK.
 */
export interface MessagesApiUsage {
  input_tokens: number;
  output_tokens: number;
  cache_creation_input_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation?: { ephemeral_1h_input_tokens?: number | null } | null;
}

export function usageFromMessagesApi(usage: MessagesApiUsage): TokenUsage {
  return {
    inputTokens: usage.input_tokens,
    outputTokens: usage.output_tokens,
    cacheCreationInputTokens: usage.cache_creation_input_tokens ?? 0,
    cacheReadInputTokens: usage.cache_read_input_tokens ?? 0,
    ...(usage.cache_creation?.ephemeral_1h_input_tokens
      ? { cacheCreation1hInputTokens: usage.cache_creation.ephemeral_1h_input_tokens }
      : {}),
  };
}

const usdPerMillion = z.number().nonnegative();

/** USD per million tokens of each kind, for one model. */
export const modelPriceSchema = z.lazy(() =>
  z.object({
    input: usdPerMillion,
    output: usdPerMillion,
    /** Writing to the prompt cache with the 5-minute TTL (1.25× the input price). */
    cacheWrite: usdPerMillion,
    /** Writing with the 1-hour TTL; when absent, 2× the input price (Anthropic's pricing page). */
    cacheWrite1h: usdPerMillion.optional(),
    cacheRead: usdPerMillion,
  }),
);
export type ModelPrice = z.infer<typeof modelPriceSchema>;

/**
 * Model name → price. A key also prices dated and provider-prefixed ids of that model (see
 * `findModelPrice`). To configure prices, spread over the default: `{ ...DEFAULT_PRICE_TABLE, ...mine }`.
 */
export const priceTableSchema = z.lazy(() => z.record(z.string().min(1), modelPriceSchema));
export type PriceTable = z.infer<typeof priceTableSchema>;

const price = (input: number, output: number, cacheWrite: number, cacheRead: number): ModelPrice => ({
  input,
  output,
  cacheWrite,
  cacheRead,
});

/**
 * List prices in USD per million tokens from Anthropic's pricing page (platform.claude.com,
 * "Model pricing": base input, output, 5-minute cache writes, cache hits) as of early 2026.
 * Prices change: a goal or worker config can override any entry.
 */
export const DEFAULT_PRICE_TABLE: PriceTable = {
  // The Claude 5 models' pages (platform.claude.com/docs/en/models/<model>/overview, "Pricing"),
  // late 2026: 5-minute writes 1.25×, 1-hour writes 2×, reads 0.1× the input price.
  'claude-opus-5-5': { ...price(4, 20, 5, 0.4), cacheWrite1h: 8 },
  'claude-opus-5': { ...price(5, 25, 6.25, 0.5), cacheWrite1h: 10 },
  'claude-sonnet-5-5': { ...price(2, 10, 2.5, 0.2), cacheWrite1h: 4 },
  'claude-sonnet-5': { ...price(2, 10, 2.5, 0.2), cacheWrite1h: 4 },
  'claude-opus-4-6': price(5, 25, 6.25, 0.5),
  'claude-opus-4-5': price(5, 25, 6.25, 0.5),
  'claude-opus-4-1': price(15, 75, 18.75, 1.5),
  'claude-opus-4-0': price(15, 75, 18.75, 1.5),
  'claude-opus-4': price(15, 75, 18.75, 1.5),
  'claude-sonnet-4-6': price(3, 15, 3.75, 0.3),
  'claude-sonnet-4-5': price(3, 15, 3.75, 0.3),
  'claude-sonnet-4-0': price(3, 15, 3.75, 0.3),
  'claude-sonnet-4': price(3, 15, 3.75, 0.3),
  'claude-3-7-sonnet': price(3, 15, 3.75, 0.3),
  'claude-3-5-sonnet': price(3, 15, 3.75, 0.3),
  'claude-haiku-4-5': price(1, 5, 1.25, 0.1),
  'claude-3-5-haiku': price(0.8, 4, 1, 0.08),
  'claude-3-opus': price(15, 75, 18.75, 1.5),
  'claude-3-haiku': price(0.25, 1.25, 0.3, 0.03),
};

// What may follow a table key in a model id: a date ("-20250929", "@20250929"), "-latest", or a
// provider version ("-v1:0"). Anything else is another model: "claude-opus-4-7" is not priced as
// "claude-opus-4", because a wrong price is worse than an admitted unknown one.
const idSuffix = /^(?:[-@]\d{8}(?:-v\d+(?::\d+)?)?|-latest|-v\d+(?::\d+)?)$/;
// Cloud-provider prefixes such as "anthropic." or "us.anthropic." (Bedrock ids, also "global.").
const providerPrefix = /^(?:[a-z]+\.)?anthropic\./;

/** The table key pricing `model`: exact, else the longest key followed by a dated suffix. */
export function findModelPrice(
  model: string,
  prices: PriceTable,
): { key: string; price: ModelPrice } | undefined {
  const id = model.trim().toLowerCase().replace(providerPrefix, '');
  let best: string | undefined;
  for (const key of Object.keys(prices)) {
    const lowerKey = key.toLowerCase();
    const fits = id === lowerKey || (id.startsWith(lowerKey) && idSuffix.test(id.slice(lowerKey.length)));
    if (fits && (best === undefined || key.length > best.length)) best = key;
  }
  const found = best === undefined ? undefined : prices[best];
  return best === undefined || found === undefined ? undefined : { key: best, price: found };
}

export interface EstimateUsdOptions {
  usage: TokenUsage;
  model: string;
  prices?: PriceTable;
}

export interface UsdEstimate {
  usd: number;
  /** False when no table entry fits the model: usd is then 0, not a guess. */
  priced: boolean;
  /** The table key that priced the model. */
  priceKey?: string;
}

export function estimateUsd({ usage, model, prices = DEFAULT_PRICE_TABLE }: EstimateUsdOptions): UsdEstimate {
  const found = findModelPrice(model, prices);
  if (found === undefined) return { usd: 0, priced: false };
  const { price: rate } = found;
  // Written with the 1-hour TTL: part of cacheCreationInputTokens, at its own rate.
  const written1h = Math.min(usage.cacheCreation1hInputTokens ?? 0, usage.cacheCreationInputTokens);
  const usd =
    (usage.inputTokens * rate.input +
      usage.outputTokens * rate.output +
      (usage.cacheCreationInputTokens - written1h) * rate.cacheWrite +
      written1h * (rate.cacheWrite1h ?? rate.input * 2) +
      usage.cacheReadInputTokens * rate.cacheRead) /
    1_000_000;
  return { usd, priced: true, priceKey: found.key };
}
