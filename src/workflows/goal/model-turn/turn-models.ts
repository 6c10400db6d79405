import type { ActivityOptions } from '@temporalio/workflow';
import { LedgerEventKind } from '../../common/ledger';
import { modelLimits } from '../../common/model-limits';
import type { TokenUsage } from '../../principles/cost';
import { formatWait, modelTroubleAtDeadline } from '../lifecycle/failures';
import { DEFAULT_MODEL_PATIENCE_MS } from '../lifecycle/input';
import type { GoalState } from '../lifecycle/state';
import type { ModelCallSettings } from './call-settings';
import {
  activeModel,
  addModelUsage,
  afterWindow,
  callWindow,
  DEFAULT_FALLBACK_COOLDOWN_MS,
  initialModelChoice,
  modelChain,
  modelForTurn,
  recordTurnModel,
  turnModelSettings,
  type ModelChoiceState,
} from './fallback';
import { answerTimeoutMs, modelCallTimeouts } from './retry-policy';

type Timeouts = Pick<ActivityOptions, 'startToCloseTimeout' | 'scheduleToCloseTimeout'>;

/** One try of a turn: the model it goes to, its settings, its timeouts. */
export interface ModelTry {
  readonly model: ModelCallSettings;
  readonly timeouts: Timeouts;
  /** Its window ends before the patience does: its end hands the turn on (see handOn). */
  readonly switches: boolean;
}

/**
 * The workflow side of fallback models (goal/model-turn/fallback.ts decides): which model each try of a
 * turn goes to, with what timeouts, what the goal records when it changes models, and the turns
 * and tokens of each model. A goal without `model.fallbacks` never gets here past `enabled`, so
 * its model calls, state and history stay exactly as before.
 */
export class TurnModels {
  constructor(
    private readonly goal: {
      readonly state: GoalState;
      record(kind: LedgerEventKind, summary: string, data: Record<string, unknown>): void;
    },
  ) {}

  /**
   * The turn's last window ended while the model was answering: its next try gets the whole
   * patience left, so an answer longer than fallbackAfterMs is cut at most once a turn.
   */
  private answering = false;

  get enabled(): boolean {
    return modelChain(this.goal.state.config.model).length > 1;
  }

  private get choice(): ModelChoiceState {
    const state = this.goal.state;
    state.models ??= initialModelChoice(Date.now()); // workflow time: the same on replay
    return state.models;
  }

  /** The model structured calls and the closing report go to: the one taking turns now. */
  active(): string {
    const model = this.goal.state.config.model;
    return this.enabled ? activeModel(this.choice, model) : model.name;
  }

  /** The goal's max_tokens, at most `model`'s own output limit. */
  roomOf(model: string): number {
    const maxTokens = this.goal.state.config.model.maxTokens;
    return Math.min(maxTokens, modelLimits(model)?.maxOutputTokens ?? maxTokens);
  }

  /** Before a turn: back to the primary once its cool-down is over (recorded). */
  beginTurn(turn: number): void {
    this.answering = false;
    if (!this.enabled) return;
    const settings = this.goal.state.config.model;
    const from = activeModel(this.choice, settings);
    const { choice, returned } = modelForTurn(this.choice, settings, Date.now());
    this.goal.state.models = choice;
    if (returned)
      this.goal.record(
        LedgerEventKind.ModelSwitched,
        `model turn ${turn} goes to ${settings.name} again: its cool-down of ${formatWait(settings.fallbackCooldownMs ?? DEFAULT_FALLBACK_COOLDOWN_MS)} since it was left is over`,
        { turn, from, to: settings.name, fallback: false, why: 'cool-down over' },
      );
  }

  /** The next try of a turn that began at `startedAt`, with `maxTokens` of room asked for. */
  nextTry(startedAt: number, maxTokens: number): ModelTry {
    const config = this.goal.state.config;
    const settings = { ...config.model, maxTokens };
    if (!this.enabled)
      return { model: settings, timeouts: modelCallTimeouts(config, maxTokens), switches: false };
    const now = Date.now();
    const name = activeModel(this.choice, config.model);
    const model = withoutFallbackFields(
      turnModelSettings(settings, {
        model: name,
        lastAnswerModel: this.lastAnswerModel(),
        transcript: this.goal.state.transcript,
      }),
    );
    const patience = config.model.patienceMs ?? DEFAULT_MODEL_PATIENCE_MS;
    const patienceLeftMs = Math.max(1, patience - (now - startedAt));
    const window = this.answering
      ? { windowMs: patienceLeftMs, switches: false }
      : callWindow({ choice: this.choice, settings: config.model, nowMs: now, patienceLeftMs });
    const attempt = answerTimeoutMs(model.maxTokens, config.timing.modelTimeoutMs);
    // A window that hands the turn on ends when it says; the patience's last window still lets
    // an answer that began just before it finish (as without fallbacks: goal/model-turn/retry-policy.ts).
    const scheduleToClose = window.switches ? window.windowMs : window.windowMs + attempt;
    return {
      model,
      timeouts: {
        startToCloseTimeout: Math.min(attempt, scheduleToClose),
        scheduleToCloseTimeout: scheduleToClose,
      },
      switches: window.switches,
    };
  }

  /**
   * A try failed: true when its window ended on overload or rate limiting, or other trouble
   * that patience left may still outlast, so the turn is asked again (of the next model, when
   * the trouble was overload or rate limiting: recorded in the ledger); false when the failure
   * stands (the caller turns it into the goal's failure).
   */
  handOn(failed: ModelTry, error: unknown, turn: number, startedAt: number): boolean {
    if (!failed.switches) return false;
    const trouble = modelTroubleAtDeadline(error);
    if (trouble === undefined) return false;
    this.answering = trouble === 'answering';
    const settings = this.goal.state.config.model;
    const now = Date.now();
    const { choice, switched } = afterWindow({ choice: this.choice, settings, nowMs: now, trouble });
    this.goal.state.models = choice;
    if (switched) {
      const to = activeModel(choice, settings);
      this.goal.record(
        LedgerEventKind.ModelSwitched,
        `model turn ${turn} goes to ${to}${choice.active === 0 ? '' : ' (fallback)'}: ${failed.model.name} stayed ${trouble} for ${formatWait(now - startedAt)}`,
        {
          turn,
          from: failed.model.name,
          to,
          fallback: choice.active !== 0,
          why: trouble,
          waitedMs: now - startedAt,
        },
      );
    }
    return true;
  }

  /** A turn answered by `model`: its run of turns grows, and its tokens are its model's. */
  answered(turn: number, model: string, usage: TokenUsage): void {
    if (!this.enabled) return;
    this.goal.state.models = recordTurnModel(this.choice, turn, model);
    addModelUsage(this.choice, model, usage);
  }

  /** Tokens of a call that was not a kept turn (a cut answer asked again, a structured answer). */
  used(model: string, usage: TokenUsage): void {
    if (this.enabled) addModelUsage(this.choice, model, usage);
  }

  /** The model that wrote the transcript's last answer, when the goal recorded it. */
  private lastAnswerModel(): string | undefined {
    const last = this.choice.runs.at(-1);
    return last !== undefined && last.lastTurn === this.goal.state.counters.modelTurns
      ? last.model
      : undefined;
  }
}

/** The activity never reads the fallback settings: they stay out of its input. */
function withoutFallbackFields<Settings extends ModelCallSettings>(settings: Settings): ModelCallSettings {
  const { fallbacks: _fallbacks, fallbackAfterMs: _after, fallbackCooldownMs: _cooldown, ...rest } = settings;
  return rest;
}
