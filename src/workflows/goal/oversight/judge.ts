import { LedgerEventKind } from '../../common/ledger';
import { totalTokens } from '../../principles/cost';
import {
  decideOnVerdict,
  initialJudgeState,
  JUDGE_TOOL_NAME,
  JudgeAction,
  judgePrompt,
  judgeVerdictSchema,
  judgeWatches,
  stretchDue,
  verdictAffordable,
  type JudgeDecision,
  type JudgedCall,
  type JudgeState,
} from '../../principles/progress-judge';
import type { GoalContext } from './context';

/** Calls of the stretch kept for the judge's prompt: the latest ones are what it judges. */
const MAX_STRETCH_CALLS = 12;

/**
 * The progress judge in the lifecycle (principles/progress-judge.ts decides): after each turn the
 * counting guards did not stop, a due stretch gets one structured call to the judge's model. The
 * call goes through the goal's structured-call path (goal/model-turn/model-calls.ts), so it has the model
 * calls' timeouts and retry policy and its tokens count in the goal's usage and budget; what it
 * cost is also kept apart, for the judge's share. A goal without success criteria, or whose stretch
 * never falls due, schedules nothing and records nothing: its history is what it was before the judge.
 */
export class GoalJudge {
  constructor(private readonly goal: GoalContext) {}

  private get settings() {
    return this.goal.state.config.judge;
  }

  /** The judge's memory; a goal's first turn (or one from before the judge) starts its stretch. */
  private memory(turnCalls = 0): JudgeState {
    this.goal.state.judge ??= initialJudgeState({
      toolCalls: this.goal.state.counters.toolCalls - turnCalls,
    });
    return this.goal.state.judge;
  }

  /** A new task (follow-up message, new plan attempt): a fresh stretch from here. */
  restart(progressMark?: number): void {
    const { verdicts, tokens } = this.memory();
    this.goal.state.judge = {
      ...initialJudgeState({
        toolCalls: this.goal.state.counters.toolCalls,
        ...(progressMark === undefined ? {} : { progressMark }),
      }),
      verdicts,
      tokens,
    };
  }

  /**
   * After a turn's calls (the ones the counting guards saw): remembers them, and when the stretch
   * is due asks for a verdict. Returns the decision when there was one to record or act on.
   */
  async afterTurn(input: {
    calls: readonly JudgedCall[];
    progressMark: number | undefined;
    consequence: string;
  }): Promise<JudgeDecision | undefined> {
    if (!judgeWatches(this.settings, this.goal.state.config.successCriteria)) return undefined;
    const memory = this.memory(input.calls.length);
    const counters = this.goal.state.counters;
    memory.recentCalls = [...memory.recentCalls, ...input.calls.map(judgedCall)].slice(-MAX_STRETCH_CALLS);
    const due = stretchDue(memory, this.settings, {
      toolCalls: counters.toolCalls,
      ...(input.progressMark === undefined ? {} : { progressMark: input.progressMark }),
    });
    if (!due) return undefined;
    const stretch = memory.recentCalls.slice(-(counters.toolCalls - memory.stretchFrom));
    const prompt = judgePrompt({
      goal: this.goal.state.config.goal,
      successCriteria: this.goal.state.config.successCriteria,
      calls: stretch,
    });
    const before = totalTokens(this.goal.state.usage);
    const affordable = verdictAffordable({
      state: memory,
      settings: this.settings,
      goalTokens: before,
      promptChars: prompt.length,
    });
    if (!affordable) return undefined; // the stretch goes on: judged once the goal has spent enough
    const answer = await this.goal.structured({
      purpose: 'progress judge',
      prompt,
      toolName: JUDGE_TOOL_NAME,
      description: 'Submit whether the latest calls advanced the success criteria.',
      schema: judgeVerdictSchema,
      model: this.settings.model,
    });
    const cost = totalTokens(this.goal.state.usage) - before;
    memory.tokens += cost;
    memory.recentCalls = [];
    const decision = decideOnVerdict(memory, this.settings, {
      verdict: answer.ok ? answer.value : undefined,
      toolCalls: counters.toolCalls,
      modelTurns: counters.modelTurns,
      consequence: input.consequence,
    });
    // Every verdict is data: what was judged, what the judge said, what it cost.
    this.goal.record(LedgerEventKind.JudgeVerdict, decision.summary, {
      ...decision.data,
      action: decision.action,
      model: this.settings.model,
      tokens: cost,
      judgeTokens: memory.tokens,
      ...(answer.ok ? {} : { error: answer.error }),
    });
    return decision.action === JudgeAction.Warn || decision.action === JudgeAction.Stop
      ? decision
      : undefined;
  }
}

function judgedCall(call: JudgedCall): JudgedCall {
  // Only what the prompt shows is kept: the goal's state stays small.
  return {
    toolName: call.toolName,
    summary: call.summary.slice(0, 200),
    resultText: call.resultText.slice(0, 200),
    failed: call.failed,
  };
}
