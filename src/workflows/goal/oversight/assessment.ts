import * as wf from '@temporalio/workflow';
import { z } from 'zod';
import {
  assess,
  assessmentDue,
  assessmentNote,
  BeliefSchema,
  beliefPrompt,
  lastProgressCycleOf,
} from '../../planning/assessment';
import { condensableThrough, condensedText, replaceWithBelief } from '../../planning/consolidation';
import type { GoalContext } from './context';
import type { GoalInput } from '../lifecycle/input';
import {
  describeChildResult,
  resultOfChildFailure,
  type GoalResult,
  type GoalWorkflowFunction,
} from '../lifecycle/result';
import { LedgerEventKind } from '../../common/ledger';
import type { Budget } from '../../principles/budget';
import { effectiveBudget, goalCost } from '../views/status';
import { addChildSpend, carveChildBudget, spendOfChild } from './child-budget';

/** Marks goals whose sub-goals run on budgets carved from theirs and count as their spend. */
export const SUB_GOAL_BUDGETS_PATCH = 'sub-goal-budgets-carved';

/**
 * Marks goals whose sub-goals run as delegated children (goal/tool-calls/delegation.ts): budgets
 * held while they run, the parent's rules inherited, their waiting calls shown on the parent.
 */
export const SUB_GOALS_DELEGATED_PATCH = 'sub-goals-delegated';

/** The split's way to pursue one sub-goal: the delegate tool's (tool-calls/delegation.ts). */
export interface SubGoalRunner {
  subGoal(goal: string, successCriteria: string[], workflowId: string): Promise<string>;
}

const subGoalsSchema = z.lazy(() =>
  z.object({
    subGoals: z
      .array(z.object({ goal: z.string().min(1), successCriteria: z.array(z.string()).default([]) }))
      .min(1)
      .max(5),
  }),
);

/**
 * Periodic self-assessment (seed 001): every N model turns the goal looks at its progress, its
 * stagnation, its tools and its memory, and adjusts. Decisions come from the pure `assess`; this
 * file applies them (priority, notes to the model, consolidation per seed 004).
 */
export class GoalAssessment {
  constructor(
    private readonly goal: GoalContext,
    private readonly subGoals?: SubGoalRunner,
  ) {}

  due(): boolean {
    const state = this.goal.state;
    if (state.assessment.requested) return true;
    const cycle = state.counters.modelTurns;
    return (
      cycle > state.assessment.lastAssessmentCycle &&
      assessmentDue({ cycle, interval: state.config.assessment.interval })
    );
  }

  async run(): Promise<void> {
    const state = this.goal.state;
    const cycle = state.counters.modelTurns;
    const result = assess({
      cycle,
      lastAssessmentCycle: state.assessment.lastAssessmentCycle,
      lastProgressCycle: lastProgressCycleOf({
        recorded: state.assessment.lastProgressCycle,
        broughtNew: state.guards?.progress.atTurn,
      }),
      progressSinceLastAssessment: false,
      toolStats: state.assessment.toolStats,
      transcriptChars: JSON.stringify(state.transcript).length,
      contextBudgetChars: state.config.assessment.contextBudgetChars,
      priority: state.assessment.priority,
      hasSubGoals: state.assessment.subGoals.length > 0,
    });
    state.assessment.priority = result.priority;
    state.assessment.lastAssessmentCycle = cycle;
    state.assessment.requested = false;
    state.assessment.count += 1;
    for (const adjustment of result.adjustments) {
      if (adjustment.kind === 'suggest-decomposition' && state.config.assessment.spawnSubGoals) {
        await this.spawnSubGoals(adjustment.reason);
      } else if (adjustment.kind === 'suggest-decomposition') {
        this.goal.note(
          `[Self-assessment] ${adjustment.reason}. Split the goal into smaller sub-goals and finish them one by one.`,
        );
      } else if (adjustment.kind === 'suggest-abandon') {
        this.goal.note(
          `[Self-assessment] ${adjustment.reason}. If no way forward is left, stop and explain what blocks the goal.`,
        );
      } else if (adjustment.kind === 'consolidate') {
        await this.consolidate(adjustment.targetChars);
      }
    }
    const note = assessmentNote(result, state.assessment.toolStats);
    if (note !== undefined) this.goal.note(note);
    this.goal.record(
      LedgerEventKind.AssessmentCompleted,
      `self-assessment at turn ${cycle}: priority ${result.priority}`,
      {
        cycle,
        findings: result.findings,
        adjustments: result.adjustments,
        ...(note === undefined ? {} : { note }),
      },
    );
  }

  /**
   * A stalled goal asks the model for sub-goals and pursues each as a child goal workflow (same
   * workspace and settings, no further splitting), then tells the model how each ended. Each child
   * starts on what is left of the parent's budget, and what it spends is the parent's
   * (child-budget.ts): a goal split into five cannot spend five budgets.
   */
  private async spawnSubGoals(reason: string): Promise<void> {
    const state = this.goal.state;
    const answer = await this.goal.structured({
      purpose: 'decomposition',
      prompt: [
        `The goal below has stalled (${reason}). Split it into 1 to 5 smaller sub-goals that can each be achieved on their own, in order.`,
        `## Goal\n${state.config.goal}`,
        `## Recent progress\n${condensedText(state.transcript, state.transcript.length - 1).slice(-4000)}`,
      ].join('\n\n'),
      toolName: 'submit_subgoals',
      description: 'Submit the sub-goals, in the order to pursue them.',
      schema: subGoalsSchema,
    });
    if (!answer.ok) {
      this.goal.note(
        `[Self-assessment] ${reason}. Split the goal into smaller sub-goals and finish them one by one.`,
      );
      return;
    }
    const { planning, assessment, reflection, ...inherited } = state.config;
    const children = answer.value.subGoals.map((subGoal, index) => ({
      workflowId: `${this.goal.workflowId}-sub-${index + 1}`,
      input: {
        ...inherited,
        goal: subGoal.goal,
        successCriteria: subGoal.successCriteria,
        planning,
        assessment: { ...assessment, spawnSubGoals: false },
        reflection: { ...reflection, enabled: false },
      },
    }));
    state.assessment.subGoals = children.map((child) => child.workflowId);
    this.goal.record(LedgerEventKind.SubGoalsSpawned, `split into ${children.length} sub-goals`, {
      subGoals: children.map((child) => ({ workflowId: child.workflowId, goal: child.input.goal })),
    });
    // Goals split before children had budgets of their own replay as they ran: each child with
    // the parent's whole budget, its spend not counted as the parent's.
    const carving = wf.patched(SUB_GOAL_BUDGETS_PATCH);
    // One after another: sub-goals share the workspace, and later ones may build on earlier ones.
    const outcomes: string[] = [];
    const delegated = carving && this.subGoals !== undefined && wf.patched(SUB_GOALS_DELEGATED_PATCH);
    for (const child of children) {
      const outcome = delegated
        ? await this.subGoals.subGoal(child.input.goal, child.input.successCriteria, child.workflowId)
        : await this.subGoalAsBefore(child, carving);
      outcomes.push(`- ${child.input.goal} (${child.workflowId}) → ${outcome}`);
    }
    this.goal.note(
      `[Self-assessment] The goal was split into sub-goals, pursued as child goals:\n${outcomes.join('\n')}\nContinue from here.`,
    );
  }

  /**
   * How goals split before sub-goals were delegated children (their histories replay so): a
   * child started here with a carved budget (none before SUB_GOAL_BUDGETS_PATCH), not held.
   */
  private async subGoalAsBefore(
    child: { workflowId: string; input: GoalInput },
    carving: boolean,
  ): Promise<string> {
    const state = this.goal.state;
    const carved = carving
      ? carveChildBudget(effectiveBudget(state), goalCost(state, Date.now()).spent)
      : undefined;
    if (carved?.kind === 'exhausted') return `not started: the ${carved.dimension} budget is spent`;
    const budget = carved?.budget;
    const input =
      budget === undefined
        ? child.input
        : { ...child.input, principles: { ...child.input.principles, budget } };
    const ended = await wf
      .executeChild<GoalWorkflowFunction>('goalWorkflow', { workflowId: child.workflowId, args: [input] })
      .then(
        (result): GoalResult | string => result,
        (error: unknown) =>
          resultOfChildFailure(error) ?? `failed: ${error instanceof Error ? error.message : String(error)}`,
      );
    const result = typeof ended === 'string' ? undefined : ended;
    if (carving) this.countChild(child.workflowId, budget, result);
    return typeof ended === 'string' ? ended : describeChildResult(ended);
  }

  /** A child ended: its spend becomes the parent's, in the state and the ledger. */
  private countChild(workflowId: string, budget: Budget | undefined, result: GoalResult | undefined): void {
    const spent = spendOfChild(result);
    this.goal.state.childSpend = addChildSpend(this.goal.state.childSpend, spent);
    this.goal.record(
      LedgerEventKind.SubGoalFinished,
      `sub-goal ${workflowId} ${result?.status ?? 'ended without a result'}${spent ? `: ${spent.toolCalls} tool calls, ${spent.tokens} tokens, $${spent.usd.toFixed(4)}` : ''}`,
      {
        workflowId,
        ...(result ? { status: result.status } : {}),
        ...(budget ? { budget } : {}),
        ...(spent ? { spent } : {}),
      },
    );
  }

  /** Condense the oldest turns into one belief that replaces them in the model's context. */
  private async consolidate(targetChars: number): Promise<void> {
    const state = this.goal.state;
    const through = condensableThrough({
      transcript: state.transcript,
      keepLatestMessages: state.config.assessment.keepLatestMessages,
      targetChars,
    });
    if (through === undefined) return;
    const answer = await this.goal.structured({
      purpose: 'consolidation',
      prompt: beliefPrompt({
        recentTurnsText: condensedText(state.transcript, through),
        goal: state.config.goal,
      }),
      toolName: 'submit_belief',
      description: 'Submit the one belief that replaces the condensed turns.',
      schema: BeliefSchema,
      fallbackKind: 'agent.reflected',
    });
    if (!answer.ok) return;
    const before = state.transcript.length;
    state.transcript = replaceWithBelief(state.transcript, through, answer.value.text);
    state.assessment.consolidations += 1;
    this.goal.record(LedgerEventKind.AgentReflected, answer.value.text, {
      kind: 'agent.reflected',
      text: answer.value.text,
      condensedMessages: before - state.transcript.length,
    });
  }
}
