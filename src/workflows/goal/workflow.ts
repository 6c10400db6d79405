import * as wf from '@temporalio/workflow';
import { ApplicationFailure, TemporalFailure } from '@temporalio/workflow';
import { arrivedEncrypted } from '../common/arrival';
import { FailureType } from '../common/failure-types';
import { LedgerEventKind } from '../common/ledger';
import {
  appendUserBlocks,
  textOf,
  thinkingOf,
  withAppendedText,
  type TranscriptMessage,
} from '../common/transcript';
import { judgeReplyAfterCheckpoint, takeMetaNote } from '../principles/principles';
import { isHarnessTool } from '../tools/harness-tools';
import { registerGoalHandlers } from './handlers';
import { goalEnding } from './lifecycle/ending';
import { describeFailure, heldBack } from './lifecycle/failures';
import { finishGoal } from './lifecycle/finish';
import type { GoalInput } from './lifecycle/input';
import { catalogueOf } from './lifecycle/preparation';
import type { GoalResult } from './lifecycle/result';
import { newGoalState, resumeGoalState } from './lifecycle/start';
import { GoalPhase, GoalStatus, type GoalState, type ToolCallRecord } from './lifecycle/state';
import { abridged, joinedText, THOUGHT_CHARS } from './model-turn/answer-text';
import type { ModelTurn } from './model-turn/model-calls';
import { afterUnfinishedAnswer } from './model-turn/unfinished-answer';
import type { GuardStop } from './oversight/guards';
import { goalStages, type GoalStages } from './stages';
import { captureTurnStart } from './lineage/fork-capture';
import { RewindRequest } from './lineage/lineage-updates';
import { nameCalls, type NamedCall } from './tool-calls/call-ids';
import { planTurn, toolResultBlocks, wasCutByLimit } from './tool-calls/turn';

export type { GoalResult } from './lifecycle/result';

/**
 * One goal, pursued by a ReAct loop: model turn → tool calls (in parallel, each possibly waiting
 * for a human) → results back to the model, until a final answer or a limit. All bookkeeping is
 * in `state`; every side effect is an activity, so a crashed worker or a restarted server loses
 * nothing. `carried` is the state handed over by continue-as-new.
 */
export async function goalWorkflow(input: GoalInput, carried?: unknown): Promise<GoalResult> {
  const state = carried === undefined ? newGoalState(input) : resumeGoalState(carried);
  // Whether this goal's payloads are encrypted: its own input arrived so (common/arrival.ts).
  const encryptedPayloads = arrivedEncrypted(carried ?? input);
  if (state.config.requireEncryptedDecisions && !encryptedPayloads) {
    throw ApplicationFailure.nonRetryable(
      'requireEncryptedDecisions needs payload encryption: this goal arrived unencrypted (set KEEL_ENCRYPTION_KEYS on its clients and workers)',
      FailureType.InvalidGoalInput,
    );
  }
  const rewind = new RewindRequest();
  const goal = new GoalRun(state, encryptedPayloads);
  goal.registerHandlers(rewind);
  let result: GoalResult;
  try {
    result = await goal.runUntilRewound(rewind);
  } catch (error) {
    // The rewind ended the run where it waited (a cancellation), or a failure came first: the
    // person asked to go back, and going back is what the goal does.
    if (rewind.requested && (wf.isCancellation(error) || error instanceof TemporalFailure))
      return goal.continueFromRewind(rewind);
    if (wf.isCancellation(error)) {
      await wf.CancellationScope.nonCancellable(async () => {
        await childrenCancelled(state);
        await goal.finish(GoalStatus.Cancelled, 'cancelled by request');
      });
      throw error; // Temporal's own Canceled status; the status query keeps the structured result
    }
    // Only failures that fail the workflow settle the goal first. Anything else (a bug) fails the
    // workflow task instead, which Temporal retries: the goal is still running then.
    if (!(error instanceof TemporalFailure)) throw error;
    result = await goal.finish(GoalStatus.Failed, describeFailure(error));
    throw ApplicationFailure.create({
      message: result.reason ?? error.message,
      type: error instanceof ApplicationFailure && error.type ? error.type : FailureType.GoalFailed,
      nonRetryable: true,
      details: [result],
    });
  }
  // Asked for while the run was ending: the rewind still wins, the goal goes on from its turn.
  if (rewind.requested) return goal.continueFromRewind(rewind);
  const ending = goalEnding(result);
  if (ending.kind === 'fail') {
    throw ApplicationFailure.create({
      message: ending.message,
      type: ending.type,
      nonRetryable: true,
      details: [result],
    });
  }
  return result;
}

/** How long a cancelled goal waits for its delegated children to end their own cancellation. */
const CHILDREN_CANCEL_WAIT_MS = 2 * 60_000;

/**
 * A cancelled goal's children are cancelled with it (their scope); it waits for them to end
 * first, as a parent that closed before them would have them terminated, without their own
 * closing (ledger, status, result). No timer unless children run: older histories replay alike.
 */
async function childrenCancelled(state: GoalState): Promise<void> {
  const running = () => state.delegations?.running.length ?? 0;
  if (running() > 0) await wf.condition(() => running() === 0, CHILDREN_CANCEL_WAIT_MS);
}

/** The lifecycle of one run of a goal; each stage lives in its own room (stages.ts wires them). */
class GoalRun {
  private readonly stages: GoalStages;

  constructor(
    private readonly state: GoalState,
    private readonly encryptedPayloads = false,
  ) {
    this.stages = goalStages(state);
  }

  registerHandlers(rewind: RewindRequest): void {
    registerGoalHandlers({ ...this.stages, encryptedPayloads: this.encryptedPayloads });
    this.stages.lineage.registerUpdates(rewind);
  }

  /** The run, in a scope of its own that a rewindGoal Update ends wherever the run waits. */
  runUntilRewound(rewind: RewindRequest): Promise<GoalResult> {
    const scope = new wf.CancellationScope();
    rewind.onRequest(() => scope.cancel());
    return scope.run(() => this.run());
  }

  /**
   * A rewind (issue 48): this run's ledger reaches its listeners and its handlers (the rewind's
   * own Update) finish, then the goal goes on as a new run from the turn's state, whose first
   * step restores the files in place.
   */
  async continueFromRewind(rewind: RewindRequest): Promise<never> {
    const carried = rewind.carried as { config: GoalInput };
    await this.stages.visibility.flush();
    await wf.condition(wf.allHandlersFinished);
    return wf.continueAsNew<typeof goalWorkflow>(carried.config, carried);
  }

  async run(): Promise<GoalResult> {
    const { state, visibility, preparation, followUps, handover, assessment, guards, toolCalls } =
      this.stages;
    const config = state.config;
    if (state.transcript.length === 0) {
      const failure = await preparation.prepare();
      if (failure) return this.finish(GoalStatus.Failed, failure);
    } else if (state.tools === undefined) {
      // A goal carried over from a version that kept no catalogue learns it now.
      const failure = await preparation.learnTools();
      if (failure) return this.finish(GoalStatus.Failed, failure);
    }
    await this.stages.lineage.restoreIfPending();
    for (;;) {
      visibility.show();
      if (state.currentTurn) {
        const ended = await this.finishTurn(state.currentTurn);
        if (ended) return ended;
      }
      captureTurnStart(state);
      followUps.take();
      await handover.ifSuggested();
      if (state.counters.modelTurns >= config.limits.maxTurns) {
        return this.finish(GoalStatus.Limit, `model turn limit of ${config.limits.maxTurns} reached`);
      }
      if (assessment.due()) await assessment.run();
      const modelTurn = await this.modelTurn();
      if ('ended' in modelTurn) return modelTurn.ended;
      const { reply, stop, maxTokens } = modelTurn;
      const exhausted = await this.budgetExhausted();
      if (exhausted) return exhausted;
      const calls = this.nameCalls(reply);
      if (stop !== 'answer') {
        afterUnfinishedAnswer(this.stages, { reply, stop, calls, maxTokens });
        continue;
      }
      // Hard guard first: it must see whether a checkpoint was open before the judge closes it.
      const checkpointReply = guards.afterReply(textOf(reply), calls.length > 0);
      if (checkpointReply.stop) {
        const ended = await this.afterGuardStop(checkpointReply.stop);
        if (ended) return ended;
      }
      const judgement = judgeReplyAfterCheckpoint(
        state.principles,
        guards.principleSettings(),
        checkpointReply.addressed,
      );
      if (judgement.addressed !== undefined) {
        visibility.record(
          LedgerEventKind.ReflectionAnswered,
          `checkpoint ${judgement.addressed ? 'answered' : 'not answered'}`,
          { addressed: judgement.addressed },
        );
      }
      if (calls.length > 0) {
        state.currentTurn = judgement.holdToolCalls
          ? calls.map(heldBack)
          : planTurn({
              calls,
              config,
              catalogue: catalogueOf(state),
              prepared: await toolCalls.prepare(calls),
              toolCallsSoFar: state.counters.toolCalls,
              nowMs: Date.now(),
            });
        toolCalls.requestApprovals(state.currentTurn);
        continue;
      }
      state.finalText = joinedText(state.cutText, textOf(reply));
      delete state.cutText;
      if (await followUps.await()) continue;
      return this.afterFinalAnswer(state.finalText);
    }
  }

  /** Seed 002: with reflection on, the output is reviewed before the goal completes. */
  private async afterFinalAnswer(finalText: string): Promise<GoalResult> {
    const { state, visibility, reflection } = this.stages;
    if (state.config.reflection.enabled) {
      state.phase = GoalPhase.Reviewing;
      visibility.show();
      await reflection.afterFinalAnswer(finalText);
      const review = state.reflection.review;
      if (review && !review.accepted) {
        const why = review.notes.trim() === '' ? '' : `: ${review.notes.trim()}`;
        return this.finish(GoalStatus.Rejected, `the output was rejected by ${review.by}${why}`);
      }
    }
    return this.finish(GoalStatus.Completed, 'final answer given');
  }

  /**
   * keel's names for the reply's calls (call-ids.ts). A reply whose tool_use ids had to be made
   * unique replaces the transcript's last message; the stored model request keeps the model's
   * own reply, so the next turn sends the changed message whole (model-request.ts matches by
   * identity), never a stored one that says otherwise.
   */
  private nameCalls(reply: TranscriptMessage): NamedCall[] {
    const transcript = this.state.transcript;
    const named = nameCalls({ reply, earlier: transcript.slice(0, -1), named: this.state.callsNamed });
    this.state.callsNamed = named.named;
    if (named.reply !== reply) transcript[transcript.length - 1] = named.reply;
    return named.calls;
  }

  /** The model's turn, unless its request alone would exhaust the goal's budget: then the end. */
  private async modelTurn(): Promise<ModelTurn | { ended: GoalResult }> {
    const { state, discipline, visibility, model } = this.stages;
    state.phase = GoalPhase.Thinking;
    discipline.giveNotes();
    const ahead = discipline.exhaustedBudgetAhead(model.expectedRequestTokens());
    if (ahead !== undefined) return { ended: await this.finish(GoalStatus.BudgetExhausted, ahead) };
    visibility.show();
    const turn = await model.turn();
    const thinking = thinkingOf(turn.reply);
    if (thinking !== '') {
      visibility.record(
        LedgerEventKind.ModelThought,
        `model turn ${state.counters.modelTurns} thought: ${abridged(thinking, THOUGHT_CHARS)}`,
        { turn: state.counters.modelTurns, characters: thinking.length },
      );
    }
    return turn;
  }

  /** Principle 4: a goal past any budget ends here, whatever the model says. */
  private async budgetExhausted(): Promise<GoalResult | undefined> {
    const reason = this.stages.discipline.exhaustedBudget();
    return reason === undefined ? undefined : this.finish(GoalStatus.BudgetExhausted, reason);
  }

  /** Runs the turn's calls, then gives the results (and any notes) back; a result ends the goal. */
  private async finishTurn(turn: ToolCallRecord[]): Promise<GoalResult | undefined> {
    const { state, toolCalls, guards, discipline, planning } = this.stages;
    await toolCalls.run(turn);
    const results = toolResultBlocks(turn);
    const metaNote = takeMetaNote(state.principles);
    const last = results[results.length - 1];
    if (metaNote && last) results[results.length - 1] = withAppendedText(last, metaNote);
    state.transcript = appendUserBlocks(state.transcript, results);
    state.currentTurn = undefined;
    if (turn.some(wasCutByLimit)) {
      return this.finish(GoalStatus.Limit, `tool-call limit of ${state.config.limits.maxToolCalls} reached`);
    }
    const exhausted = await this.budgetExhausted();
    if (exhausted) return exhausted;
    if (toolCalls.planningGaveUp?.kind === 'give-up')
      return this.finish(GoalStatus.Failed, toolCalls.planningGaveUp.reason);
    const guardStop = await guards.afterTurn(turn);
    if (guardStop) {
      const ended = await this.afterGuardStop(guardStop);
      if (ended) return ended;
    }
    if (turn.some((call) => !isHarnessTool(call.toolName) && call.status === 'done')) discipline.checkpoint();
    const step = await planning.checkStep();
    if (step.kind === 'give-up') return this.finish(GoalStatus.Failed, step.reason);
    return undefined;
  }

  /**
   * A hard guard stopped the model: the goal ends as stuck (a normal result status, not a failed
   * workflow), or with planning on the step failed and the plan backtracked, unless none is left.
   */
  private async afterGuardStop(stop: GuardStop): Promise<GoalResult | undefined> {
    if (stop.kind === 'stuck') return this.finish(GoalStatus.Stuck, `stopped by a guard: ${stop.reason}`);
    if (stop.outcome.kind === 'give-up') return this.finish(GoalStatus.Failed, stop.outcome.reason);
    return undefined;
  }

  finish(status: GoalStatus, reason: string): Promise<GoalResult> {
    return finishGoal(this.stages, status, reason);
  }
}
