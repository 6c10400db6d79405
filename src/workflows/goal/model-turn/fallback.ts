import { z } from 'zod';
import {
  addUsage,
  estimateUsd,
  tokenUsageSchema,
  type PriceTable,
  type TokenUsage,
} from '../../principles/cost';
import { modelLimits, supportsExtendedThinking } from '../../common/model-limits';
import type { TranscriptMessage } from '../../common/transcript';
import type { ModelSettings } from '../lifecycle/input';

/**
 * Fallback models (issue 42): when the goal's model stays overloaded or rate-limited for
 * `model.fallbackAfterMs`, the turn goes to the next model of `model.fallbacks`; the primary is
 * asked again once `model.fallbackCooldownMs` has passed since the goal left it. Pure: every
 * decision is a function of the goal's state and workflow time, so replay makes the same ones.
 */

/** How long the primary must stay overloaded or rate-limited before a turn goes to a fallback. */
export const DEFAULT_FALLBACK_AFTER_MS = 2 * 60_000;
/** How long turns stay with the fallbacks before the primary is asked again. */
export const DEFAULT_FALLBACK_COOLDOWN_MS = 10 * 60_000;
/** Turns-by-model runs kept in state (older ones are counted, not kept: state is carried). */
export const MAX_MODEL_RUNS = 50;

/**
 * What the model API last said before a call's window ended (goal/lifecycle/failures.ts reads it):
 * 'answering' when it had refused nothing (the answer was on its way and the window cut it).
 */
export type ModelTrouble = 'overloaded' | 'rate-limited' | 'other' | 'answering';

export const modelRunSchema = z.lazy(() =>
  z.object({
    model: z.string(),
    fallback: z.boolean(),
    firstTurn: z.number().int().positive(),
    lastTurn: z.number().int().positive(),
  }),
);
export type ModelRun = z.infer<typeof modelRunSchema>;

/** Which model the goal's turns go to, and since when; carried through continue-as-new. */
export const modelChoiceStateSchema = z.lazy(() =>
  z.object({
    /** Index into the chain: 0 the primary (model.name), i the i-th of model.fallbacks. */
    active: z.number().int().nonnegative(),
    /** Workflow time (epoch ms) the active model took over. */
    since: z.number(),
    /** Workflow time the goal last left the primary: the cool-down counts from here. */
    primaryLeftAt: z.number().optional(),
    /** Consecutive turns answered by one model, oldest first, at most MAX_MODEL_RUNS. */
    runs: z.array(modelRunSchema).default([]),
    runsDropped: z.number().int().nonnegative().default(0),
    /** Tokens by the model that used them, so each is priced at its own model's rates. */
    usage: z.record(z.string(), tokenUsageSchema).default({}),
  }),
);
export type ModelChoiceState = z.infer<typeof modelChoiceStateSchema>;

type FallbackSettings = Pick<ModelSettings, 'name' | 'fallbacks' | 'fallbackAfterMs' | 'fallbackCooldownMs'>;

/** The primary, then each fallback once (a fallback naming the primary again adds nothing). */
export function modelChain(settings: Pick<ModelSettings, 'name' | 'fallbacks'>): string[] {
  return [...new Set([settings.name, ...(settings.fallbacks ?? [])])];
}

export function initialModelChoice(nowMs: number): ModelChoiceState {
  return { active: 0, since: nowMs, runs: [], runsDropped: 0, usage: {} };
}

/** Adds a call's tokens to its model's (in place: the goal's state is one mutable object). */
export function addModelUsage(choice: ModelChoiceState, model: string, usage: TokenUsage): void {
  const before = choice.usage[model];
  choice.usage[model] = before === undefined ? { ...usage } : addUsage(before, usage);
}

function cooldownOver(choice: ModelChoiceState, settings: FallbackSettings, nowMs: number): boolean {
  const cooldown = settings.fallbackCooldownMs ?? DEFAULT_FALLBACK_COOLDOWN_MS;
  return choice.primaryLeftAt === undefined || nowMs - choice.primaryLeftAt >= cooldown;
}

/**
 * The model the next turn goes to: the active one, or the primary again once its cool-down is
 * over. `returned` says the goal went back to the primary (for the ledger).
 */
export function modelForTurn(
  choice: ModelChoiceState,
  settings: FallbackSettings,
  nowMs: number,
): { choice: ModelChoiceState; returned: boolean } {
  const chain = modelChain(settings);
  // A chain that shrank (a state carried with an index past it) starts over at the primary.
  const stale = choice.active >= chain.length;
  if (choice.active === 0 || (!stale && !cooldownOver(choice, settings, nowMs)))
    return { choice, returned: false };
  return { choice: { ...choice, active: 0, since: nowMs }, returned: !stale };
}

/**
 * How long one call to the active model may take (its schedule-to-close, less the attempt the
 * last one adds): the patience left of the turn, and while another model could take the turn,
 * `fallbackAfterMs` (on the last fallback: until the primary's cool-down ends, at least
 * fallbackAfterMs). `switches` is true when the window ends before the patience does, so its
 * end hands the turn on rather than failing the goal.
 */
export function callWindow(options: {
  choice: ModelChoiceState;
  settings: FallbackSettings;
  nowMs: number;
  patienceLeftMs: number;
}): { windowMs: number; switches: boolean } {
  const { choice, settings, nowMs, patienceLeftMs } = options;
  const chain = modelChain(settings);
  if (chain.length === 1) return { windowMs: patienceLeftMs, switches: false };
  const after = settings.fallbackAfterMs ?? DEFAULT_FALLBACK_AFTER_MS;
  const cooldown = settings.fallbackCooldownMs ?? DEFAULT_FALLBACK_COOLDOWN_MS;
  const last = choice.active >= chain.length - 1;
  const untilPrimary = choice.primaryLeftAt === undefined ? 0 : choice.primaryLeftAt + cooldown - nowMs;
  const window = last ? Math.max(after, untilPrimary) : after;
  return window < patienceLeftMs
    ? { windowMs: window, switches: true }
    : { windowMs: patienceLeftMs, switches: false };
}

/**
 * After a call's window ended while the API kept refusing: overload or rate limiting hands the
 * turn to the next model (the primary first once its cool-down is over; the last fallback keeps
 * it until then); any other trouble (5xx, a silence, an answer cut by the window) stays with
 * the same model, since another model behind the same API would fare no better.
 */
export function afterWindow(options: {
  choice: ModelChoiceState;
  settings: FallbackSettings;
  nowMs: number;
  trouble: ModelTrouble;
}): { choice: ModelChoiceState; switched: boolean } {
  const { choice, settings, nowMs, trouble } = options;
  if (trouble === 'other' || trouble === 'answering') return { choice, switched: false };
  const chain = modelChain(settings);
  const leaving = choice.active === 0 ? { primaryLeftAt: nowMs } : {};
  const next =
    choice.active !== 0 && cooldownOver(choice, settings, nowMs)
      ? 0
      : Math.min(choice.active + 1, chain.length - 1);
  if (next === choice.active) return { choice, switched: false };
  return { choice: { ...choice, ...leaving, active: next, since: nowMs }, switched: true };
}

/** The active model's name. */
export function activeModel(choice: ModelChoiceState, settings: FallbackSettings): string {
  return modelChain(settings)[choice.active] ?? settings.name;
}

/**
 * Counts a turn answered by `model`: the runs grow by one turn, or by a new run when the model
 * changed; the oldest runs go once there are more than MAX_MODEL_RUNS.
 */
export function recordTurnModel(choice: ModelChoiceState, turn: number, model: string): ModelChoiceState {
  const runs = [...choice.runs];
  const last = runs.at(-1);
  if (last !== undefined && last.model === model && last.lastTurn === turn - 1)
    runs[runs.length - 1] = { ...last, lastTurn: turn };
  else if (last === undefined || last.lastTurn !== turn)
    runs.push({ model, fallback: choice.active !== 0, firstTurn: turn, lastTurn: turn });
  const dropped = Math.max(0, runs.length - MAX_MODEL_RUNS);
  return { ...choice, runs: runs.slice(dropped), runsDropped: choice.runsDropped + dropped };
}

/**
 * The goal's model settings as one turn sends them to `model`, following the API's rules for a
 * conversation that changes models:
 *
 * - Output limit: max_tokens at most the model's own ("Max output" on its model page; a request
 *   above it is refused), and the thinking budget below it.
 * - Extended thinking only where the model has it (the extended-thinking docs' "Supported
 *   models": Claude 3.7 Sonnet and the Claude 4 and later models).
 * - A tool-use loop: "during tool use, you must pass thinking blocks back to the API for the
 *   last assistant message" (platform.claude.com/docs/en/build-with-claude/extended-thinking,
 *   "Preserving thinking blocks"); when that message came from another model, its block may
 *   not be one this model reads ("If the current model can't read a block, the API drops it from
 *   that request without an error": /en/build-with-claude/preserved-thinking) or it has none (a
 *   model without thinking). So that one turn goes without thinking — the API's own advice for
 *   the requirement: "To avoid this requirement, disable `thinking`".
 *
 * The transcript itself is never changed: earlier turns' thinking blocks go back as they came
 * ("Send assistant turns back exactly as the API returned them": preserved-thinking; removing
 * one would change the prefix of every later block and fail the API's prefix check), and the
 * API leaves previous turns' thinking out of what the model sees ("previous thinking blocks are
 * automatically stripped from the context window calculation": /en/build-with-claude/context-windows).
 */
export function turnModelSettings<Settings extends Pick<ModelSettings, 'name' | 'maxTokens' | 'thinking'>>(
  settings: Settings,
  options: { model: string; lastAnswerModel: string | undefined; transcript: readonly TranscriptMessage[] },
): Settings {
  const { model } = options;
  // The primary answering after itself: the goal's settings as they are (validated at the start).
  if (model === settings.name && (options.lastAnswerModel ?? model) === model) return settings;
  const limit = modelLimits(model)?.maxOutputTokens ?? settings.maxTokens;
  const maxTokens = Math.min(settings.maxTokens, limit);
  const { thinking: configured, ...rest } = settings;
  const loopFromAnother =
    options.lastAnswerModel !== undefined &&
    options.lastAnswerModel !== model &&
    inToolLoop(options.transcript);
  const budget = configured === undefined ? undefined : Math.min(configured.budgetTokens, maxTokens - 1);
  const thinks =
    budget !== undefined && budget >= 1024 && supportsExtendedThinking(model) && !loopFromAnother;
  return {
    ...rest,
    name: model,
    maxTokens,
    ...(thinks ? { thinking: { budgetTokens: budget } } : {}),
  } as Settings;
}

/** The request continues a tool-use loop: tool results answer the last assistant message's calls. */
export function inToolLoop(transcript: readonly TranscriptMessage[]): boolean {
  const last = transcript.at(-1);
  const before = transcript.at(-2);
  const blocks = (message: TranscriptMessage | undefined) => message?.content ?? [];
  return (
    last?.role === 'user' &&
    before?.role === 'assistant' &&
    blocks(last).some((block) => block.type === 'tool_result') &&
    blocks(before).some((block) => block.type === 'tool_use')
  );
}

/**
 * The goal's cost with each model's tokens at that model's rates (cost.ts's lookup, per model);
 * tokens no model was recorded for (used before the goal recorded them) at the primary's.
 */
export function costByModel(options: {
  choice: ModelChoiceState;
  total: TokenUsage;
  primary: string;
  prices?: PriceTable;
}): { usd: number; priced: boolean; byModel: Record<string, number> } {
  const prices = options.prices === undefined ? {} : { prices: options.prices };
  let rest = options.total;
  let usd = 0;
  let priced = true;
  const byModel: Record<string, number> = {};
  for (const [model, usage] of Object.entries(options.choice.usage)) {
    const estimate = estimateUsd({ usage, model, ...prices });
    byModel[model] = estimate.usd;
    usd += estimate.usd;
    priced &&= estimate.priced;
    rest = lessUsage(rest, usage);
  }
  if (rest.inputTokens + rest.outputTokens + rest.cacheCreationInputTokens + rest.cacheReadInputTokens > 0) {
    const estimate = estimateUsd({ usage: rest, model: options.primary, ...prices });
    usd += estimate.usd;
    priced &&= estimate.priced;
  }
  return { usd, priced, byModel };
}

function lessUsage(total: TokenUsage, part: TokenUsage): TokenUsage {
  const less = (a: number, b: number) => Math.max(0, a - b);
  return {
    inputTokens: less(total.inputTokens, part.inputTokens),
    outputTokens: less(total.outputTokens, part.outputTokens),
    cacheCreationInputTokens: less(total.cacheCreationInputTokens, part.cacheCreationInputTokens),
    cacheReadInputTokens: less(total.cacheReadInputTokens, part.cacheReadInputTokens),
    cacheCreation1hInputTokens: less(
      total.cacheCreation1hInputTokens ?? 0,
      part.cacheCreation1hInputTokens ?? 0,
    ),
  };
}

/** What views and the result say of a goal's models: each run of turns, and which is active. */
export interface ModelsView {
  active: string;
  fallback: boolean;
  since: number;
  runs: ModelRun[];
  runsDropped: number;
  usdByModel: Record<string, number>;
}

/** "Models: claude-sonnet-4-6 turns 1–2; claude-haiku-4-5 (fallback) turns 3–4; now claude-haiku-4-5" */
export function modelsLine(view: ModelsView): string {
  const turns = (run: ModelRun) =>
    run.firstTurn === run.lastTurn ? `turn ${run.firstTurn}` : `turns ${run.firstTurn}–${run.lastTurn}`;
  const runs = view.runs.map((run) => `${run.model}${run.fallback ? ' (fallback)' : ''} ${turns(run)}`);
  const dropped = view.runsDropped > 0 ? `${view.runsDropped} earlier runs; ` : '';
  return `Models: ${dropped}${runs.join('; ')}; now ${view.active}${view.fallback ? ' (fallback)' : ''}`;
}
