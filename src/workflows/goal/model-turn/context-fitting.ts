import { fitToBudget, type ContextBudget, type FittedTranscript } from '../../common/context-budget';
import {
  charBudgetForTokens,
  charsOf,
  estimateTokens,
  expectedTokens,
  measureContext,
  requestTokenLimit,
  tooLongFigures,
} from '../../common/context-tokens';
import { LedgerEventKind } from '../../common/ledger';
import { inputTokensOfAllKinds } from '../../principles/cost';
import { DEFAULT_CONTEXT_BUDGET } from '../lifecycle/input';
import type { GoalState } from '../lifecycle/state';
import type { ModelCallResult } from './call-settings';

/** Rounds of trimming one fit may take when a cut was not enough by the estimate. */
const MAX_FIT_ROUNDS = 3;

/** Why a request was too long, in the model's own figures when it gave them. */
export type TooLong =
  /** The API refused the request ("prompt is too long", 413). */
  | { readonly kind: 'refused'; readonly message: string }
  /** The answer stopped at the window (stop_reason model_context_window_exceeded). */
  | { readonly kind: 'window-full'; readonly usage: ModelCallResult['usage'] };

/**
 * Keeps what the goal sends the model within its context budget: the character budget (which
 * also keeps requests far below Temporal's payload limit) and the model's window in tokens
 * (common/context-tokens.ts). Trimming is fitToBudget's, told a smaller budget in characters
 * where the tokens ask for it. No patch marks the change: nothing is released yet, and a goal
 * replaying from before trims the same unless its transcript came near the window.
 */
export class ContextFitting {
  constructor(
    private readonly goal: {
      readonly state: GoalState;
      /** Writes a ledger event (a trimmed context says so). */
      record(kind: LedgerEventKind, summary: string, data: Record<string, unknown>): void;
      /** Every model the goal's turns may go to: the primary and its fallbacks. */
      models(): readonly string[];
    },
  ) {}

  private get state(): GoalState {
    return this.goal.state;
  }

  /** The system prompt and tools change rarely: their estimate is made once per change. */
  private overheadEstimate: { readonly text: string; readonly tokens: number } | undefined;

  private overheadTokens(overhead: string): number {
    if (this.overheadEstimate?.text !== overhead)
      this.overheadEstimate = { text: overhead, tokens: estimateTokens(overhead) };
    return this.overheadEstimate.tokens;
  }

  private get budget(): ContextBudget {
    return this.state.config.context ?? DEFAULT_CONTEXT_BUDGET;
  }

  private limit(): number {
    const model = this.state.config.model;
    return requestTokenLimit({
      models: this.goal.models(),
      windowTokens: model.contextWindowTokens,
      maxTokens: model.maxTokens,
    });
  }

  /** After an answer: what the API counted, for the next fit. */
  measured(usage: ModelCallResult['usage']): void {
    this.state.contextMeasure = measureContext(this.state.transcript, {
      inputTokensOfAllKinds: inputTokensOfAllKinds(usage),
      outputTokens: usage.outputTokens,
    });
  }

  /**
   * Before a turn: the transcript within the budget in characters and, by the measure and the
   * estimate of what came since, within the model's window in tokens. `overhead` is what the
   * request sends besides the transcript (the system prompt and the tools).
   */
  fit(overhead: string): void {
    let maxChars = this.budget.maxChars;
    let why = 'to fit its budget';
    let transcript = this.state.transcript;
    let elidedBlocks = 0;
    let droppedTurns = 0;
    let charsBefore = 0;
    let charsAfter = 0;
    for (let round = 0; round < MAX_FIT_ROUNDS; round += 1) {
      // The API's measure holds only for the transcript it measured: later rounds estimate.
      const limit = this.limit();
      const measure = round === 0 ? this.state.contextMeasure : undefined;
      const expected = expectedTokens(transcript, overhead, measure);
      const chars = charBudgetForTokens({
        transcriptChars: charsOf(transcript),
        expected,
        overheadTokens: this.overheadTokens(overhead),
        limit,
      });
      if (chars !== undefined && chars < maxChars) {
        maxChars = chars;
        why = `to fit the model's window: about ${expected} tokens expected, ${limit} allowed`;
      }
      const fitted = fitToBudget(transcript, { ...this.budget, maxChars });
      if (fitted.elidedBlocks === 0 && fitted.droppedTurns === 0) break;
      if (round === 0) charsBefore = fitted.charsBefore;
      charsAfter = fitted.charsAfter;
      transcript = fitted.transcript;
      elidedBlocks += fitted.elidedBlocks;
      droppedTurns += fitted.droppedTurns;
    }
    if (elidedBlocks === 0 && droppedTurns === 0) return;
    this.state.transcript = transcript;
    this.recordTrim({ transcript, elidedBlocks, droppedTurns, charsBefore, charsAfter }, why);
  }

  /**
   * The model found the request too long for its window: one large step, to the share of the
   * window the request may fill, by the model's own figures (or to half the transcript when it
   * gave none). False when there is nothing left to cut.
   */
  fitHarder(tooLong: TooLong, overhead: string): boolean {
    const transcript = this.state.transcript;
    const size = JSON.stringify(transcript).length;
    let maxChars = Math.floor(Math.min(size, this.budget.maxChars) / 2);
    const figures = this.figuresOf(tooLong);
    if (figures !== undefined) {
      const chars = charBudgetForTokens({
        transcriptChars: size,
        expected: figures.tokens,
        overheadTokens: this.overheadTokens(overhead),
        limit: figures.limit,
      });
      if (chars === undefined) return false;
      maxChars = Math.min(chars, this.budget.maxChars);
    }
    const fitted = fitToBudget(transcript, { maxChars, keepLatestMessages: 2 });
    if (fitted.charsAfter >= fitted.charsBefore) return false;
    this.state.transcript = fitted.transcript;
    const why =
      tooLong.kind === 'refused'
        ? 'the model found the request too long for its context window'
        : "the model's answer ran into the end of its context window";
    this.recordTrim(fitted, why);
    return true;
  }

  /**
   * The tokens the request held and the most the next may hold, from what the model said: the
   * window it named ("N tokens > M maximum"), or the one the answer ran into (its input and output
   * together), less the answer's room, and never more than keel's own limit.
   */
  private figuresOf(tooLong: TooLong): { tokens: number; limit: number } | undefined {
    let tokens: number;
    let window: number;
    if (tooLong.kind === 'refused') {
      const figures = tooLongFigures(tooLong.message);
      if (figures === undefined) return undefined;
      tokens = figures.tokens;
      window = figures.maximum;
    } else {
      tokens = inputTokensOfAllKinds(tooLong.usage);
      window = tokens + tooLong.usage.outputTokens;
    }
    const model = this.state.config.model;
    const named = requestTokenLimit({
      models: [model.name],
      windowTokens: window,
      maxTokens: model.maxTokens,
    });
    return { tokens, limit: Math.min(named, this.limit()) };
  }

  private recordTrim(fitted: FittedTranscript, why: string): void {
    const dropped = fitted.droppedTurns > 0 ? `, ${fitted.droppedTurns} oldest turns dropped` : '';
    this.goal.record(
      LedgerEventKind.ContextTrimmed,
      `context trimmed ${why}: ${fitted.elidedBlocks} old blocks elided${dropped} (${fitted.charsBefore} → ${fitted.charsAfter} characters)`,
      {
        elidedBlocks: fitted.elidedBlocks,
        droppedTurns: fitted.droppedTurns,
        charsBefore: fitted.charsBefore,
        charsAfter: fitted.charsAfter,
      },
    );
  }
}
