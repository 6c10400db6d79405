import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import type { GoalCounters, GoalPhase, GoalStatus, TokenUsageTotals } from './goal-state';
import type { Reversibility } from './reversibility';

/**
 * Every message a goal understands, defined once and imported by the workflow, the CLI and the
 * tests. Names are the wire names, so `temporal workflow signal --name approve` works too.
 */

export const approvalSignalPayloadSchema = z
  .object({
    callId: z.string().min(1, 'callId is required'),
    approver: z.string().min(1).default('unknown'),
    reason: z.string().default(''),
  })
  .strict();
export type ApprovalSignalPayload = z.input<typeof approvalSignalPayloadSchema>;

export const approvalUpdatePayloadSchema = approvalSignalPayloadSchema
  .extend({ approved: z.boolean() })
  .strict();
export type ApprovalUpdatePayload = z.input<typeof approvalUpdatePayloadSchema>;

export interface ApprovalReceipt {
  callId: string;
  approved: boolean;
  toolSummary: string;
}

export const userMessagePayloadSchema = z
  .object({ text: z.string().trim().min(1, 'text is required') })
  .strict();
export type UserMessagePayload = z.input<typeof userMessagePayloadSchema>;

export const approveSignal = defineSignal<[ApprovalSignalPayload]>('approve');
export const denySignal = defineSignal<[ApprovalSignalPayload]>('deny');
export const decideApprovalUpdate = defineUpdate<ApprovalReceipt, [ApprovalUpdatePayload]>('decideApproval');
export const userMessageSignal = defineSignal<[UserMessagePayload]>('userMessage');

export interface PendingApprovalView {
  callId: string;
  toolName: string;
  summary: string;
  reversibility: Reversibility;
  input: unknown;
  requestedAt: string;
  deadline: string;
}

export interface GoalStatusView {
  goal: string;
  status: GoalStatus;
  phase: GoalPhase;
  task: { index: number; text: string };
  counters: GoalCounters;
  usage: TokenUsageTotals;
  pendingApprovals: PendingApprovalView[];
  latestMessages: string[];
  finalText?: string;
  endReason?: string;
  continuedAsNew: number;
}

export const goalStatusQuery = defineQuery<GoalStatusView>('status');

export const DESCRIPTIONS = {
  approve: 'Approve a pending tool call: {"callId": "...", "approver": "...", "reason": "..."}',
  deny: 'Deny a pending tool call: {"callId": "...", "approver": "...", "reason": "..."}',
  decideApproval: 'Approve or deny a pending tool call and learn at once whether the decision was accepted',
  userMessage: 'Send a follow-up message; it starts a new task inside the goal: {"text": "..."}',
  status: 'Status, counters, pending approvals and the latest messages of the goal',
} as const;
