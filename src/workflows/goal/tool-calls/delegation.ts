/**
 * The delegate tool's run (issue 47): a child goal workflow with a subset of the parent's tools,
 * a budget carved from what the parent has left (and held until it ends), on the parent's host
 * and workspace. Its answer, or how it stopped, is the call's result: a child that fails, is
 * stopped by a guard or runs out of budget is a result for the parent's model, never the
 * parent's failure. The decisions are pure, in delegation/delegation.ts.
 */
import * as wf from '@temporalio/workflow';
import { LedgerEventKind } from '../../common/ledger';
import { DelegateWorkspace, delegateInputSchema, type DelegateInput } from '../../tools/delegate-spec';
import {
  copyEndingDetails,
  copyEndingText,
  sharedWritesText,
  type CopyEnding,
} from '../../delegation/merge-report';
import { ChildCopies } from './child-copy';
import { childResultOf, spendLineOf, type DelegationResult } from './delegation-result';
import {
  childCallLimit,
  childTools,
  childWorkflowId,
  mayStartChild,
  reservationOf,
  sliceBudget,
  spentWithReservations,
  type DelegationState,
  type RunningChild,
} from '../../delegation/delegation';
import type { Budget } from '../../principles/budget';
import { RuleEffect, RuleSource, type ApprovalRule } from '../../approvals/approval-rule';
import { parentRuleSignal } from '../messages';
import { isInForce } from '../../approvals/rule-book';
import type { GoalInput } from '../lifecycle/input';
import {
  describeChildResult,
  resultOfChildFailure,
  type GoalResult,
  type GoalWorkflowFunction,
} from '../lifecycle/result';
import type { GoalState, ToolCallRecord } from '../lifecycle/state';
import { addChildSpend, carveChildBudget, spendOfChild } from '../oversight/child-budget';
import { effectiveBudget, goalCost } from '../views/status';
import type { ToolCallsHost } from './tool-calls-host';
import { forgetChild } from '../views/child-approvals';

export type { DelegationResult } from './delegation-result';

/** Who asked for a child: a delegate call, or the self-assessment's split (with the id it names). */
interface DelegationOrigin {
  callId: string;
  summary: string;
  workflowId?: string;
  subGoal?: boolean;
}

/** A child's summary in the Web UI, within the length the UI shows whole. */
export function summaryOf(parentWorkflowId: string, task: string): string {
  const text = `delegated by ${parentWorkflowId}: ${task.replace(/\s+/g, ' ')}`;
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

export class GoalDelegation {
  private readonly copies: ChildCopies;

  constructor(private readonly goal: ToolCallsHost) {
    this.copies = new ChildCopies(goal);
  }

  private get state(): GoalState {
    return this.goal.state;
  }

  private get delegations(): DelegationState {
    this.state.delegations ??= { started: 0, running: [] };
    return this.state.delegations;
  }

  async run(call: ToolCallRecord): Promise<DelegationResult> {
    const input = delegateInputSchema.parse(call.input);
    const tools = childTools(this.state.tools?.catalogue ?? [], input);
    if (!tools.ok) return { content: `Not delegated: ${tools.error}`, isError: true };
    const delegated = await this.delegate(input, tools.names, { callId: call.callId, summary: call.summary });
    if (delegated.kind === 'exhausted') {
      return {
        content: `Not delegated: your ${delegated.dimension} is spent, so no child can start. Finish with what you have.`,
        isError: true,
      };
    }
    return delegated.result;
  }

  /**
   * One sub-goal of the self-assessment's split (goal/oversight/assessment.ts), by the same
   * mechanism as a delegate call: a budget carved and held, the parent's rules inherited, its
   * waiting calls shown on the parent. With every tool, on the shared workspace, under the id the
   * split names it by. Returns how it ended, in a line.
   */
  async subGoal(goal: string, successCriteria: string[], workflowId: string): Promise<string> {
    const input: DelegateInput = {
      task: goal,
      successCriteria,
      budget: {},
      workspace: DelegateWorkspace.Shared,
    };
    const tools = childTools(this.state.tools?.catalogue ?? [], input);
    if (!tools.ok) return `not started: ${tools.error}`;
    const delegated = await this.delegate(input, tools.names, {
      callId: workflowId,
      summary: goal,
      workflowId,
      subGoal: true,
    });
    if (delegated.kind === 'exhausted') return `not started: the ${delegated.dimension} is spent`;
    const { ended } = delegated;
    return typeof ended === 'string' ? ended : describeChildResult(ended);
  }

  private async delegate(
    input: DelegateInput,
    tools: string[],
    origin: DelegationOrigin,
  ): Promise<
    | { kind: 'exhausted'; dimension: string }
    | { kind: 'ended'; result: DelegationResult; ended: GoalResult | string }
  > {
    const reserved = await this.reserve(origin, input);
    if (reserved.kind === 'exhausted') return reserved;
    const { child, budget } = reserved;
    const workflowId = child.workflowId;
    let workspace = this.goal.host.workspace;
    if (input.workspace === DelegateWorkspace.Copy) {
      // A cancelled parent must not wait for a child that never started (workflow.ts).
      const made = await this.copies.make(workflowId, input.folder).catch((error: unknown) => {
        this.release(child);
        throw error;
      });
      if ('refused' in made) {
        this.release(child);
        const content = `Not delegated: no copy of your workspace could be made: ${made.refused}`;
        return { kind: 'ended', result: { content, isError: true }, ended: content };
      }
      workspace = made.copy;
    }
    // A sub-goal's start is in the split's own event (subgoals.spawned).
    if (!origin.subGoal) {
      this.goal.visibility.record(
        LedgerEventKind.DelegateStarted,
        `delegated to ${workflowId}: ${origin.summary}`,
        {
          callId: origin.callId,
          workflowId,
          workspace: input.workspace,
          ...(input.folder === undefined ? {} : { folder: input.folder }),
          tools,
          ...(budget ? { budget } : {}),
          ...(input.budget.maxTurns ? { maxTurns: input.budget.maxTurns } : {}),
        },
      );
    }
    this.goal.visibility.show();
    let ended: GoalResult | string;
    try {
      ended = await this.runChild(
        workflowId,
        this.childInput(input, tools, budget, workspace, child.heldCalls ?? 1),
      );
    } catch (error) {
      if (input.workspace === DelegateWorkspace.Copy) await this.copies.end(workflowId, false, input.folder);
      throw error;
    } finally {
      // Its hold on the budget ends with it; what it spent is counted below.
      this.release(child);
    }
    const copyEnding =
      input.workspace === DelegateWorkspace.Copy
        ? await this.copies.end(
            workflowId,
            typeof ended !== 'string' && ended.status === 'completed',
            input.folder,
          )
        : undefined;
    return {
      kind: 'ended',
      result: this.finished(workflowId, ended, {
        copyEnding,
        budget,
        subGoal: origin.subGoal === true,
        shared: input.workspace === DelegateWorkspace.Shared,
      }),
      ended,
    };
  }

  /**
   * A forbid rule added to this goal reaches its running children (and, through them, theirs): a
   * model must not delegate its way around a rule a human set after the child started. Allow rules
   * and revocations do not travel: a running child keeps what it inherited (docs: Delegation).
   */
  shareRule(rule: ApprovalRule): void {
    if (rule.effect !== RuleEffect.Forbid) return;
    for (const child of this.delegations.running) {
      // A child that has just ended cannot take it: nothing to do then.
      void wf
        .getExternalWorkflowHandle(child.workflowId)
        .signal(parentRuleSignal, rule)
        .catch(() => undefined);
    }
  }

  private release(child: RunningChild): void {
    this.delegations.running = this.delegations.running.filter((running) => running !== child);
  }

  /**
   * Waits for a free place (delegation/delegation.ts's mayStartChild), then carves the child's
   * budget from what is left once running children's holds are set aside, and holds it. When only
   * those holds use it up, the child waits for one of them to end instead of being refused. The
   * check and the hold happen with no await between them: lanes of one turn run side by side.
   */
  private async reserve(
    origin: DelegationOrigin,
    input: DelegateInput,
  ): Promise<
    | { kind: 'reserved'; child: RunningChild; budget: Budget | undefined }
    | { kind: 'exhausted'; dimension: string }
  > {
    const maxConcurrent = this.state.config.delegation.maxConcurrent;
    const mayStart = () => mayStartChild(this.delegations.running, input.workspace, maxConcurrent);
    for (;;) {
      await wf.condition(mayStart);
      if (!mayStart()) continue; // another lane took the place first
      const running = this.delegations.running;
      const spent = spentWithReservations(goalCost(this.state, Date.now()).spent, running);
      const carved = carveChildBudget(effectiveBudget(this.state), spent);
      const calls = childCallLimit({
        limit: this.state.config.limits.maxToolCalls,
        ownCalls: this.state.counters.toolCalls,
        endedChildrenCalls: this.state.childSpend?.toolCalls ?? 0,
        running,
        slice: input.budget.maxToolCalls,
      });
      if (carved.kind === 'carved' && calls > 0) {
        const budget: Budget | undefined = sliceBudget(carved.budget, input.budget);
        if (origin.workflowId === undefined) this.delegations.started += 1;
        const child: RunningChild = {
          callId: origin.callId,
          workflowId: origin.workflowId ?? childWorkflowId(this.goal.workflowId, this.delegations.started),
          task: input.task,
          workspace: input.workspace,
          reserved: reservationOf(budget),
          heldCalls: calls,
        };
        running.push(child);
        return { kind: 'reserved', child, budget };
      }
      if (running.length === 0) {
        return carved.kind === 'exhausted'
          ? { kind: 'exhausted', dimension: `${carved.dimension} budget` }
          : { kind: 'exhausted', dimension: 'tool-call limit' };
      }
      const before = running.length;
      await wf.condition(() => this.delegations.running.length < before);
    }
  }

  /**
   * The parent's settings, narrowed: the task, the tools given, the budget carved, on the
   * parent's host, in its workspace or its own copy (a child elsewhere would not see the parent's files), one
   * level deeper, finishing at its answer (no follow-up window, no split, no reflection).
   */
  private childInput(
    input: DelegateInput,
    tools: string[],
    budget: Budget | undefined,
    workspace: string,
    heldCalls: number,
  ): GoalInput {
    const {
      planning,
      assessment,
      reflection,
      limits,
      delegation,
      principles,
      approvalRules: _inputRules,
      inherited: _ownInheritance,
      ...inherited
    } = this.state.config;
    const fromParent = this.inheritance();
    const host = this.goal.host.id;
    return {
      ...inherited,
      goal: input.task,
      successCriteria: input.successCriteria,
      tools,
      workspace,
      ...(host === undefined ? {} : { host }),
      limits: {
        ...limits,
        // The parent's tool-call limit is the tree's: the child holds the calls left of it (reserve).
        maxToolCalls: heldCalls,
        maxTurns: Math.min(limits.maxTurns, input.budget.maxTurns ?? limits.maxTurns),
      },
      principles: { ...principles, ...(budget === undefined ? {} : { budget }) },
      delegation: { ...delegation, depth: delegation.depth + 1 },
      planning,
      assessment: { ...assessment, spawnSubGoals: false },
      reflection: { ...reflection, enabled: false },
      followUpWindowMs: 0,
      ...(fromParent ? { inherited: fromParent } : {}),
    };
  }

  /**
   * What binds the parent binds the child: its rules in force (its input's among them, revoked
   * ones not; the worker's policy the child reads itself) and its remembered denials.
   */
  private inheritance(): GoalInput['inherited'] {
    const nowMs = Date.now();
    const rules = (this.state.approvalRules?.rules ?? []).filter(
      (rule) => isInForce(rule, nowMs) && rule.source !== RuleSource.WorkerPolicy,
    );
    const rememberedDenials = this.state.rememberedDenials ?? [];
    return rules.length === 0 && rememberedDenials.length === 0 ? undefined : { rules, rememberedDenials };
  }

  private async runChild(workflowId: string, input: GoalInput): Promise<GoalResult | string> {
    try {
      return await wf.executeChild<GoalWorkflowFunction>('goalWorkflow', {
        workflowId,
        args: [input],
        // The Web UI's summary: whose child it is and what it was asked (its Details say the rest).
        staticSummary: summaryOf(this.goal.workflowId, input.goal),
      });
    } catch (error) {
      // The parent's own cancellation reaches the child too (its scope), and ends this call.
      if (wf.isCancellation(error)) throw error;
      // A child that did not complete carries its result in its failure's details.
      return (
        resultOfChildFailure(error) ?? `it failed: ${error instanceof Error ? error.message : String(error)}`
      );
    }
  }

  /** The child's spend becomes the parent's; its answer (or how it stopped) is the call's result. */
  private finished(
    workflowId: string,
    ended: GoalResult | string,
    ending: {
      copyEnding: CopyEnding | undefined;
      budget: Budget | undefined;
      subGoal: boolean;
      shared: boolean;
    },
  ): DelegationResult {
    const { copyEnding, budget, subGoal, shared } = ending;
    const result = typeof ended === 'string' ? undefined : ended;
    const spent = spendOfChild(result);
    this.state.childSpend = addChildSpend(this.state.childSpend, spent);
    forgetChild(this.state, workflowId);
    const spendLine = spendLineOf(spent);
    this.goal.visibility.record(
      subGoal ? LedgerEventKind.SubGoalFinished : LedgerEventKind.DelegateFinished,
      `${subGoal ? 'sub-goal ' : ''}${workflowId} ${result?.status ?? 'ended without a result'}: ${spendLine}`,
      {
        workflowId,
        ...(result ? { status: result.status } : {}),
        ...(budget ? { budget } : {}),
        ...(spent ? { spent } : {}),
        ...(copyEnding ? copyEndingDetails(copyEnding) : {}),
      },
    );
    this.goal.visibility.show();
    // What it changed: a copy's merge says it; a child on the shared workspace, what its calls wrote.
    const changes =
      copyEnding !== undefined
        ? copyEndingText(copyEnding)
        : shared && result !== undefined
          ? sharedWritesText(result.workspaceWrites)
          : undefined;
    return childResultOf({ workflowId, ended: result ?? 'it left no result', spendLine, changes });
  }
}
