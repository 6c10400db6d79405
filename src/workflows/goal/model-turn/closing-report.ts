import type { Budget, BudgetSpent } from '../../principles/budget';
import { estimateUsd, totalTokens, type PriceTable, type TokenUsage } from '../../principles/cost';
import { modelLimits } from '../../common/model-limits';
import {
  appendUserBlocks,
  textOf,
  toolUsesOf,
  type ContentBlock,
  type TranscriptMessage,
} from '../../common/transcript';
import { GoalStatus } from '../lifecycle/state';

/**
 * The closing report: when a guard or a limit stops a goal, the model gets one last turn without
 * tools to say what was done and what is left, and that becomes the goal's final text. Pure, so
 * the workflow decides from its state alone and replay decides the same (goal/model-turn/closing-report-turn.ts
 * runs it).
 */

/** The report's room: a few paragraphs, never a second piece of work. */
export const CLOSING_REPORT_MAX_TOKENS = 1024;

/** Four characters a token: a rough, stable estimate of the request, made before it is sent. */
const CHARACTERS_PER_TOKEN = 4;

/** Endings that ask the model for a report: a guard (stuck) or a turn or tool-call limit. */
const REPORTED_ENDINGS: ReadonlySet<GoalStatus> = new Set([GoalStatus.Stuck, GoalStatus.Limit]);

/**
 * Whether a goal that ended so says what it did in a closing report: for these endings the final
 * text, when there is one, is always the report (a final answer ends a goal as completed).
 */
export function endsWithReport(status: GoalStatus): boolean {
  return REPORTED_ENDINGS.has(status);
}

/** Endings whose report is skipped, and why (the ledger says so). */
const SKIPPED_ENDINGS: Readonly<Partial<Record<GoalStatus, string>>> = {
  [GoalStatus.BudgetExhausted]: 'the budget is spent',
};

export type ClosingReportPlan =
  | { kind: 'ask'; maxTokens: number; estimate: { tokens: number; usd: number } }
  | { kind: 'skip'; why: string };

/**
 * Whether the ending gets a report: undefined when it is not an ending that reports at all
 * (completed, failed, rejected, cancelled), `skip` with why (an exhausted budget, a cancelled
 * goal), or `ask`: build the request and weigh it with closingReportPlan.
 */
export function closingReportEnding(
  status: GoalStatus,
  cancelled: boolean,
): { kind: 'ask' } | { kind: 'skip'; why: string } | undefined {
  const skipped = SKIPPED_ENDINGS[status];
  if (skipped !== undefined) return { kind: 'skip', why: skipped };
  if (!REPORTED_ENDINGS.has(status)) return undefined;
  return cancelled ? { kind: 'skip', why: 'the goal was cancelled' } : { kind: 'ask' };
}

/**
 * The report's room, or why it is skipped: when the budget left could not pay for it. The cost
 * is estimated high on purpose (every input token priced as uncached, the whole room as output):
 * a report must not take a goal past its budget.
 */
export function closingReportPlan(options: {
  model: { name: string; maxTokens: number; thinking?: { budgetTokens: number } | undefined };
  /** Characters of the report's request (system prompt, tools and messages as JSON). */
  requestChars: number;
  budget?: Budget | undefined;
  spent: BudgetSpent;
  prices?: PriceTable | undefined;
}): ClosingReportPlan {
  const maxTokens = closingReportMaxTokens(options.model);
  const usage: TokenUsage = {
    inputTokens: Math.ceil(options.requestChars / CHARACTERS_PER_TOKEN),
    outputTokens: maxTokens,
    cacheCreationInputTokens: 0,
    cacheReadInputTokens: 0,
  };
  const prices = options.prices ? { prices: options.prices } : {};
  const estimate = {
    tokens: totalTokens(usage),
    usd: estimateUsd({ usage, model: options.model.name, ...prices }).usd,
  };
  const short = budgetShortfall(options.budget, options.spent, estimate);
  return short === undefined ? { kind: 'ask', maxTokens, estimate } : { kind: 'skip', why: short };
}

/**
 * The report's max_tokens: CLOSING_REPORT_MAX_TOKENS, or less when the goal's own max_tokens or
 * the model's output limit is lower. With extended thinking the room comes on top of the thinking
 * budget (the API wants max_tokens above it), within the same limits.
 */
export function closingReportMaxTokens(model: {
  name: string;
  maxTokens: number;
  thinking?: { budgetTokens: number } | undefined;
}): number {
  const limit = Math.min(model.maxTokens, modelLimits(model.name)?.maxOutputTokens ?? model.maxTokens);
  const wanted = (model.thinking?.budgetTokens ?? 0) + CLOSING_REPORT_MAX_TOKENS;
  return Math.max(1, Math.min(wanted, limit));
}

/** Why the budget left could not pay for the report, or undefined when it can. */
function budgetShortfall(
  budget: Budget | undefined,
  spent: BudgetSpent,
  estimate: { tokens: number; usd: number },
): string | undefined {
  if (budget === undefined) return undefined;
  if (budget.maxTokens !== undefined && spent.tokens + estimate.tokens > budget.maxTokens)
    return `the token budget left (${Math.max(0, budget.maxTokens - spent.tokens)}) could not pay for it (about ${estimate.tokens})`;
  if (budget.maxUsd !== undefined && spent.usd + estimate.usd > budget.maxUsd)
    return `the cost budget left ($${Math.max(0, budget.maxUsd - spent.usd).toFixed(4)}) could not pay for it (about $${estimate.usd.toFixed(4)})`;
  return undefined;
}

/** What the model is asked: the stop, then what was done and what is left, in plain words. */
export function closingReportPrompt(reason: string): string {
  return [
    `[keel: the harness has stopped this goal: ${reason}. No more tool calls will run.]`,
    'Write a short closing report for the person who set the goal, in plain text, without tool calls:',
    '- what was done (what changed, what was checked and how),',
    '- what is left to do, and',
    '- what got in the way, and what you would try next.',
    'Say only what the conversation above shows.',
  ].join('\n');
}

/** The tool_result of a call the stop left unanswered: it was never run. */
export const NOT_RUN_AT_STOP = 'Not run: the harness stopped the goal before this call ran.';

/**
 * The report's messages: the transcript and the prompt as the last user message. Calls of a last
 * assistant message that were never run (a guard stopped the goal on that reply) are answered
 * first, as not run: the API wants every tool_use answered in the next message. The transcript is
 * not changed; messages it shares with the request stay the same objects (goal/model-turn/request.ts
 * sends those by reference).
 */
export function closingReportMessages(
  transcript: readonly TranscriptMessage[],
  prompt: string,
): TranscriptMessage[] {
  const last = transcript.at(-1);
  const unanswered = last?.role === 'assistant' ? toolUsesOf(last) : [];
  const blocks: ContentBlock[] = [
    ...unanswered.map((call) => ({
      type: 'tool_result' as const,
      tool_use_id: call.id,
      content: NOT_RUN_AT_STOP,
      is_error: true,
    })),
    { type: 'text', text: prompt },
  ];
  return appendUserBlocks([...transcript], blocks);
}

/**
 * The report in the model's answer: its text, tool calls ignored (an endpoint may write one
 * despite tool_choice none), thinking never shown. Undefined when it wrote no text. A report cut
 * at max_tokens is kept and says so.
 */
export function closingReportText(
  content: readonly ContentBlock[],
  stopReason: string | null,
  maxTokens: number,
): string | undefined {
  const text = textOf({ role: 'assistant', content: [...content] });
  if (text === '') return undefined;
  return stopReason === 'max_tokens'
    ? `${text}\n[keel: the report reached its limit of ${maxTokens} tokens and was cut here.]`
    : text;
}
