import {
  ApplicationFailure,
  CancelledFailure,
  Client,
  WorkflowFailedError,
  type WorkflowHandle,
} from '@temporalio/client';
import type { KeyObject } from 'node:crypto';
import { signDecision, signRuleChange } from './approval-keys';
import {
  signedDecisionRule,
  type ApprovalRule,
  type DecisionRule,
  type RuleEffect,
  type RuleScope,
} from '../workflows/approvals/approval-rule';
import { dataConverterFromEnv } from '../codec/data-converter';
import type { ConnectionSettings } from './connection-settings';
import { processTracing } from '../tracing/process-tracing';
import { goalWorkflow } from '../workflows/goal/workflow';
import { asGoalResult, type GoalResult } from '../workflows/goal/lifecycle/result';
import { parseGoalInput, type GoalInput } from '../workflows/goal/lifecycle/input';
import {
  addApprovalRuleUpdate,
  approvalRulesQuery,
  approveSignal,
  decideApprovalsUpdate,
  decideApprovalUpdate,
  denySignal,
  goalStatusQuery,
  revokeApprovalRuleUpdate,
  type ApprovalUpdatePayload,
  submitReviewUpdate,
  userMessageSignal,
  type ApprovalReceipt,
  type GoalStatusView,
  type PendingApprovalView,
} from '../workflows/goal/messages';
import { decisionTier } from '../workflows/approvals/decision-tier';
import { defaultUserName } from './os-user';
import { connectTemporal } from './temporal-connection';

export type GoalHandle = WorkflowHandle<typeof goalWorkflow>;

export async function connectClient(settings: ConnectionSettings): Promise<Client> {
  const dataConverter = dataConverterFromEnv(); // a malformed KEEL_ENCRYPTION_KEYS fails before connecting
  const connection = await connectTemporal({ address: settings.address, connectTimeout: 5000 });
  const tracing = processTracing(); // OTEL_TRACES_EXPORTER=console|otlp traces starts and signals
  return new Client({
    connection,
    namespace: settings.namespace,
    dataConverter,
    ...(tracing ? { plugins: [...tracing.plugins] } : {}),
  });
}

export function newGoalId(): string {
  return `goal-${new Date()
    .toISOString()
    .replace(/[-:.TZ]/g, '')
    .slice(0, 14)}-${Math.random().toString(36).slice(2, 8)}`;
}

/**
 * Starts a goal. Input is validated here as well as in the workflow, so a typo fails at once on
 * the command line instead of as a failed workflow.
 */
export async function startGoal(
  client: Client,
  options: {
    input: GoalInput;
    taskQueue: string;
    workflowId?: string;
    /** Put before the goal in the Web UI's summary, e.g. to say the model is scripted. */
    summaryPrefix?: string;
  },
): Promise<GoalHandle> {
  const parsed = parseGoalInput(options.input);
  if (!parsed.ok) throw new Error(parsed.message);
  return client.workflow.start(goalWorkflow, {
    taskQueue: options.taskQueue,
    workflowId: options.workflowId ?? newGoalId(),
    args: [options.input],
    staticSummary: summaryLine(`${options.summaryPrefix ?? ''}${parsed.config.goal}`),
  });
}

function summaryLine(goal: string): string {
  const line = goal.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

export function goalHandle(client: Client, workflowId: string): GoalHandle {
  return client.workflow.getHandle<typeof goalWorkflow>(workflowId);
}

/**
 * The status query, checked against Temporal's own word: the query replays the history, so a run
 * that Temporal closed without keel's code running (terminated, timed out) would still say
 * "running". Such a run is reported as it ended, with nothing pending.
 */
export async function goalStatus(handle: GoalHandle): Promise<GoalStatusView> {
  const view = await handle.query(goalStatusQuery);
  if (view.status !== 'running') return view;
  const execution = (await handle.describe().catch(() => undefined))?.status.name;
  const ending =
    execution === 'TERMINATED' ? 'terminated' : execution === 'TIMED_OUT' ? 'timed_out' : undefined;
  if (ending === undefined) return view;
  return {
    ...view,
    status: ending,
    phase: 'done',
    endReason: `the workflow was ${ending.replace('_', ' ')} by Temporal, outside keel`,
    pendingApprovals: [],
    awaitingReview: false,
  };
}

/**
 * Temporal's status of a goal that exists and has closed ("completed", "failed", "canceled", …);
 * undefined when it is running or does not exist. Signals and Updates to a closed workflow fail
 * as "not found", which would be wrong to repeat to a user.
 */
export async function closedGoalStatus(client: Client, workflowId: string): Promise<string | undefined> {
  const description = await client.workflow
    .getHandle(workflowId)
    .describe()
    .catch(() => undefined);
  const name = description?.status.name;
  return name === undefined || name === 'RUNNING' ? undefined : name.toLowerCase().replace(/_/g, ' ');
}

/**
 * A goal's result however it ended. A completed goal's workflow returns it; a goal that failed,
 * hit a limit or a budget, or was rejected fails its workflow with the result in the failure's
 * details; a cancelled goal's workflow is Canceled and the status query still holds the result.
 * Anything else (bad input, a terminated workflow) is thrown as Temporal reports it.
 */
export async function goalResult(handle: GoalHandle): Promise<GoalResult> {
  try {
    return await handle.result();
  } catch (error) {
    const carried = resultOfFailure(error);
    if (carried) return carried;
    if (error instanceof WorkflowFailedError && error.cause instanceof CancelledFailure) {
      const view = await handle.query(goalStatusQuery).catch(() => undefined);
      if (view?.result) return view.result;
    }
    throw error;
  }
}

/** The result a failed goal's workflow carries in its ApplicationFailure's details, if any. */
export function resultOfFailure(error: unknown): GoalResult | undefined {
  if (!(error instanceof WorkflowFailedError) || !(error.cause instanceof ApplicationFailure))
    return undefined;
  return asGoalResult(error.cause.details?.[0]);
}

export interface DecisionOptions {
  callId: string;
  approved: boolean;
  approver?: string;
  reason?: string;
  /** Signals are fire-and-forget; the Update (default) is refused at once for a wrong call id. */
  via?: 'update' | 'signal';
  /** Signs the decision (Ed25519), for goals whose input sets approvalSignatures. */
  signingKey?: KeyObject;
  /**
   * Denials only: refuse later calls with the same intent without asking (the goal refuses it on
   * an approval too; this is checked here first, so no message is sent for it).
   */
  doNotAskAgain?: boolean;
  /**
   * Also decide later calls like this one in this goal: an allow rule with an approval, a forbid
   * rule with a denial (tool and pattern default to this call's; docs/approvals-and-security.md, Approval rules).
   */
  rule?: DecisionRule;
  /** The digest of the held changes the approver was shown: any other set is refused. */
  changesDigest?: string;
  /**
   * The call as the goal listed it, when it was listed: a signature then covers which ask it
   * decides (its tier and request time), so it cannot decide the call's escalated ask too.
   */
  listed?: Pick<PendingApprovalView, 'reversibility' | 'requestedAt'>;
  /** Where the decision is made ("inbox 127.0.0.1, link"), recorded with it; not signed. */
  origin?: string;
}

export async function decideApproval(
  handle: GoalHandle,
  options: DecisionOptions,
): Promise<ApprovalReceipt | undefined> {
  const payload = decisionPayload(handle.workflowId, options);
  if (options.via === 'signal') {
    const { approved: _approved, ...signalPayload } = payload;
    await handle.signal(options.approved ? approveSignal : denySignal, signalPayload);
    return undefined;
  }
  return handle.executeUpdate(decideApprovalUpdate, { args: [payload] });
}

/**
 * Several decisions in one Update (`keel approve <goal> --all`): the goal accepts all of them or
 * none, and records each separately.
 */
export function decideApprovals(
  handle: GoalHandle,
  decisions: ReadonlyArray<Omit<DecisionOptions, 'via'>>,
): Promise<ApprovalReceipt[]> {
  return handle.executeUpdate(decideApprovalsUpdate, {
    args: [{ decisions: decisions.map((decision) => decisionPayload(handle.workflowId, decision)) }],
  });
}

/** A decision as the goal reads it, signed when a key is given. */
function decisionPayload(workflowId: string, options: Omit<DecisionOptions, 'via'>): ApprovalUpdatePayload {
  const approver = options.approver ?? defaultApprover();
  const doNotAskAgain = options.doNotAskAgain === true;
  if (doNotAskAgain && options.approved) {
    throw new Error('doNotAskAgain applies to denials only: deny with it, or approve without it');
  }
  const signature = options.signingKey
    ? signDecision(options.signingKey, {
        workflowId,
        callId: options.callId,
        approved: options.approved,
        approver,
        doNotAskAgain,
        ...(options.rule === undefined ? {} : { rule: signedDecisionRule(options.approved, options.rule) }),
        ...(options.listed === undefined
          ? {}
          : {
              stage: {
                tier: decisionTier(options.listed.reversibility),
                requestedAt: options.listed.requestedAt,
                changesDigest: options.changesDigest,
              },
            }),
      })
    : undefined;
  return {
    callId: options.callId,
    approver,
    reason: options.reason ?? '',
    approved: options.approved,
    ...(signature === undefined ? {} : { signature }),
    ...(doNotAskAgain ? { doNotAskAgain: true } : {}),
    ...(options.rule === undefined ? {} : { rule: options.rule }),
    ...(options.changesDigest === undefined ? {} : { changesDigest: options.changesDigest }),
    ...(options.listed === undefined ? {} : { requestedAt: options.listed.requestedAt }),
    ...(options.origin === undefined ? {} : { origin: options.origin }),
  };
}

export interface RuleChangeOptions {
  approver?: string;
  reason?: string;
  signingKey?: KeyObject;
}

/** Adds a rule to a running goal (`keel rules <goal> --allow/--forbid`); refused at once if it may not. */
export function addApprovalRule(
  handle: GoalHandle,
  rule: RuleScope & { effect: RuleEffect },
  options: RuleChangeOptions = {},
): Promise<ApprovalRule> {
  const approver = options.approver ?? defaultApprover();
  const signature = options.signingKey
    ? signRuleChange(options.signingKey, { workflowId: handle.workflowId, change: 'add', rule, approver })
    : undefined;
  return handle.executeUpdate(addApprovalRuleUpdate, {
    args: [
      { ...rule, approver, reason: options.reason ?? '', ...(signature === undefined ? {} : { signature }) },
    ],
  });
}

export function revokeApprovalRule(
  handle: GoalHandle,
  ruleId: string,
  options: RuleChangeOptions = {},
): Promise<ApprovalRule> {
  const approver = options.approver ?? defaultApprover();
  const signature = options.signingKey
    ? signRuleChange(options.signingKey, {
        workflowId: handle.workflowId,
        change: 'revoke',
        ruleId,
        approver,
      })
    : undefined;
  return handle.executeUpdate(revokeApprovalRuleUpdate, {
    args: [
      { ruleId, approver, reason: options.reason ?? '', ...(signature === undefined ? {} : { signature }) },
    ],
  });
}

export function approvalRules(handle: GoalHandle): Promise<ApprovalRule[]> {
  return handle.query(approvalRulesQuery);
}

/**
 * Accepts or rejects the output of a goal that waits for a human review (reflection.review:
 * human), through the `submitReview` Update; refused at once when the goal is not waiting for one.
 */
export function submitReview(
  handle: GoalHandle,
  review: { accepted: boolean; reviewer?: string; notes?: string },
): Promise<{ accepted: boolean }> {
  return handle.executeUpdate(submitReviewUpdate, {
    args: [
      {
        accepted: review.accepted,
        reviewer: review.reviewer ?? defaultApprover(),
        notes: review.notes ?? '',
      },
    ],
  });
}

export function sendUserMessage(handle: GoalHandle, text: string): Promise<void> {
  return handle.signal(userMessageSignal, { text });
}

function defaultApprover(): string {
  return defaultUserName();
}

/** Running keel goals on the task queue's namespace, newest first. */
export async function listRunningGoals(client: Client): Promise<string[]> {
  const ids: string[] = [];
  const query = `WorkflowType = 'goalWorkflow' AND ExecutionStatus = 'Running'`;
  for await (const execution of client.workflow.list({ query })) ids.push(execution.workflowId);
  return ids;
}
