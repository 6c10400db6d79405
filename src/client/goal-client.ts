import { Client, Connection, type WorkflowHandle } from '@temporalio/client';
import type { KeyObject } from 'node:crypto';
import { signDecision } from './approval-keys';
import { dataConverterFromEnv } from '../codec/data-converter';
import type { ConnectionSettings } from '../connection-settings';
import { processTracing } from '../tracing';
import { goalWorkflow } from '../workflows/goal/goal-workflow';
import { parseGoalInput, type GoalInput } from '../workflows/goal/goal-input';
import {
  approveSignal,
  decideApprovalUpdate,
  denySignal,
  goalStatusQuery,
  userMessageSignal,
  type ApprovalReceipt,
  type GoalStatusView,
} from '../workflows/goal/messages';

export type GoalHandle = WorkflowHandle<typeof goalWorkflow>;

export async function connectClient(settings: ConnectionSettings): Promise<Client> {
  const dataConverter = dataConverterFromEnv(); // a malformed KEEL_ENCRYPTION_KEYS fails before connecting
  const connection = await Connection.connect({ address: settings.address, connectTimeout: 5000 });
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
  options: { input: GoalInput; taskQueue: string; workflowId?: string },
): Promise<GoalHandle> {
  const parsed = parseGoalInput(options.input);
  if (!parsed.ok) throw new Error(parsed.message);
  return client.workflow.start(goalWorkflow, {
    taskQueue: options.taskQueue,
    workflowId: options.workflowId ?? newGoalId(),
    args: [options.input],
    staticSummary: summaryLine(parsed.config.goal),
  });
}

function summaryLine(goal: string): string {
  const line = goal.replace(/\s+/g, ' ').trim();
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}

export function goalHandle(client: Client, workflowId: string): GoalHandle {
  return client.workflow.getHandle<typeof goalWorkflow>(workflowId);
}

export function goalStatus(handle: GoalHandle): Promise<GoalStatusView> {
  return handle.query(goalStatusQuery);
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
}

export async function decideApproval(
  handle: GoalHandle,
  options: DecisionOptions,
): Promise<ApprovalReceipt | undefined> {
  const approver = options.approver ?? defaultApprover();
  const signature = options.signingKey
    ? signDecision(options.signingKey, {
        workflowId: handle.workflowId,
        callId: options.callId,
        approved: options.approved,
        approver,
      })
    : undefined;
  const payload = {
    callId: options.callId,
    approver,
    reason: options.reason ?? '',
    ...(signature === undefined ? {} : { signature }),
  };
  if (options.via === 'signal') {
    await handle.signal(options.approved ? approveSignal : denySignal, payload);
    return undefined;
  }
  return handle.executeUpdate(decideApprovalUpdate, { args: [{ ...payload, approved: options.approved }] });
}

export function sendUserMessage(handle: GoalHandle, text: string): Promise<void> {
  return handle.signal(userMessageSignal, { text });
}

function defaultApprover(): string {
  return process.env.USER ?? 'cli';
}

/** Running keel goals on the task queue's namespace, newest first. */
export async function listRunningGoals(client: Client): Promise<string[]> {
  const ids: string[] = [];
  const query = `WorkflowType = 'goalWorkflow' AND ExecutionStatus = 'Running'`;
  for await (const execution of client.workflow.list({ query })) ids.push(execution.workflowId);
  return ids;
}
