import type { WorkspaceEffects } from '../tools/tool-outcome';
import type { ChildSpend } from './oversight/child-budget';
import type { ChildApproval, ChildApprovalsPayload } from './views/child-approval-schema';
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import type {
  GoalCounters,
  GoalPhase,
  GoalStatus,
  IgnoredDecision,
  TokenUsageTotals,
} from './lifecycle/state';
import type { LedgerEvent } from '../common/ledger';
import type { GoalResult, GoalStats } from './lifecycle/result';
import type { Plan } from '../planning/plan';
import type { Reversibility } from '../tools/reversibility';
import type { ToolCatalogue } from '../tools/tool-catalogue';
import { hostIdSchema } from '../hosts/host-queues';
import type { WorkspaceLoss } from '../hosts/workspace-writes';
import type { ModelsView } from './model-turn/fallback';
import { decisionRuleSchema, type ApprovalRule } from '../approvals/approval-rule';
import type { AddRulePayload, RevokeRulePayload } from '../approvals/rule-changes';

/**
 * Every message a goal understands, defined once and imported by the workflow, the CLI and the
 * tests. Names are the wire names, so `temporal workflow signal --name approve` works too.
 */

/**
 * An approve/deny decision. `approver` is required: every decision records who made it (and the
 * goal's approver policy decides whether they may). `signature` is base64 Ed25519 over
 * `canonicalDecisionText` (approval-authority.ts); goals with `approvalSignatures` require it.
 * `doNotAskAgain` (denials only; an approval with it is refused, not silently stripped): the goal
 * remembers what the call was about and refuses later calls with that intent without asking
 * (goal/tool-calls/remembered-denials.ts).
 */
export const approvalSignalPayloadSchema = z
  .object({
    callId: z.string({ error: 'callId is required' }).min(1, 'callId is required'),
    approver: z.string({ error: 'approver is required' }).trim().min(1, 'approver is required'),
    reason: z.string().default(''),
    signature: z.string().optional(),
    doNotAskAgain: z.boolean({ error: 'doNotAskAgain must be true or false' }).optional(),
    /**
     * Also decide later calls like this one, in this goal: with an approval an allow rule, with a
     * denial a forbid rule (approvals/approval-rule.ts). Signed with the decision when signed.
     */
    rule: decisionRuleSchema.optional(),
    /** The digest of the held changes the approver was shown (approvals/change-set-digest.ts). */
    changesDigest: z.string().min(1).max(200).optional(),
    /**
     * The ask the approver was listed (PendingApprovalView.requestedAt): a decision for another
     * ask of the call (it was escalated since) is refused, not applied to what nobody listed.
     */
    requestedAt: z.string().min(1).max(100).optional(),
    /**
     * Where the decision was made, as its sender says (the inbox: "inbox 127.0.0.1, token"; the CLI:
     * "cli on HOST"): recorded with the decision and in the ledger. Not signed: the approver and
     * the signature say who decided; this says from where.
     */
    origin: z.string().trim().min(1).max(200, 'origin is at most 200 characters').optional(),
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

/** Several decisions in one Update (`keel approve <goal> --all`): all are accepted, or none is. */
export const MAX_BULK_DECISIONS = 100;
export const bulkDecisionPayloadSchema = z
  .object({
    decisions: z
      .array(approvalUpdatePayloadSchema)
      .min(1, 'name at least one decision')
      .max(MAX_BULK_DECISIONS, `at most ${MAX_BULK_DECISIONS} decisions at once`),
  })
  .strict();
export type BulkDecisionPayload = z.input<typeof bulkDecisionPayloadSchema>;

export const approveSignal = defineSignal<[ApprovalSignalPayload]>('approve');
export const denySignal = defineSignal<[ApprovalSignalPayload]>('deny');
export const decideApprovalUpdate = defineUpdate<ApprovalReceipt, [ApprovalUpdatePayload]>('decideApproval');
export const decideApprovalsUpdate = defineUpdate<ApprovalReceipt[], [BulkDecisionPayload]>(
  'decideApprovals',
);
export const addApprovalRuleUpdate = defineUpdate<ApprovalRule, [AddRulePayload]>('addApprovalRule');
export const revokeApprovalRuleUpdate = defineUpdate<ApprovalRule, [RevokeRulePayload]>('revokeApprovalRule');
/** Every rule of the goal, in force or not, oldest first. */
export const approvalRulesQuery = defineQuery<ApprovalRule[]>('approvalRules');
export const userMessageSignal = defineSignal<[UserMessagePayload]>('userMessage');
/** From a delegated child: the calls of its tree that wait for a human (goal/views/child-approvals.ts). */
export const childApprovalsSignal = defineSignal<[ChildApprovalsPayload]>('childApprovals');
/** From a delegated child's parent: a forbid rule added there after the child started. */
export const parentRuleSignal = defineSignal<[ApprovalRule]>('parentRule');

export interface PendingApprovalView {
  callId: string;
  toolName: string;
  /** A one-line label of the call, cut short: never all an approver is shown (see `call`). */
  summary: string;
  /** The whole call as a human must read it before deciding: never cut, nothing hidden (callText). */
  call: string;
  reversibility: Reversibility;
  input: unknown;
  requestedAt: string;
  deadline: string;
  /**
   * Why it waits for a human: the tool's reason for its tier or what the worker found, and the
   * goal's policy (approvals/why-it-waits.ts). Always there in views from this version on.
   */
  reason?: string;
  /**
   * The changes the call made on its copy-on-write layer, held there until this decision:
   * approving applies exactly these, denying discards them.
   */
  heldChanges?: WorkspaceEffects;
  /**
   * The held changes as a unified diff, cut short when long (activities/tools/layers/held-diff.ts):
   * what the change list names, shown line by line. Absent for calls held before it was recorded.
   */
  heldDiff?: string;
  /**
   * Who may decide this call: the goal's approvers for the tier it is held at. Absent: anyone may
   * (the goal names no approvers for that tier).
   */
  approvers?: string[];
}

/** Numbers that show how the harness principles acted on this goal (defined with the result). */
export type { GoalStats } from './lifecycle/result';

/** The hard guards as the status query and the Web UI show them. */
export interface GuardsView {
  decisions: number;
  checkpointsEnforced: boolean;
  /** The latest guard.* ledger event (the denials guard's warnings aside: see lastDecision). */
  last?: { kind: string; summary: string; at: string };
}

/** The latest decision on a waiting call (a human's, a rule's, a timeout's), from the ledger. */
export interface LastDecisionView {
  summary: string;
  at: string;
  reason?: string;
}

export interface GoalStatusView {
  goal: string;
  /** keel's status; a client adds terminated / timed_out for runs Temporal closed without keel. */
  status: GoalStatus | 'terminated' | 'timed_out';
  phase: GoalPhase;
  task: { index: number; text: string };
  counters: GoalCounters;
  usage: TokenUsageTotals;
  pendingApprovals: PendingApprovalView[];
  latestMessages: string[];
  finalText?: string;
  endReason?: string;
  continuedAsNew: number;
  stats: GoalStats;
  priority: number;
  plan?: Plan;
  lastCheckpoint?: { atToolCall: number; at: string };
  budget?: Array<{ dimension: string; spent: number; limit: number }>;
  /** What the goal's child goals spent, counted in its budget and cost (absent before a child ended). */
  childSpend?: ChildSpend;
  /** Calls of this goal's children (and theirs) that wait for a human, with the id to decide them by here. */
  childApprovals?: Array<ChildApproval & { qualifiedId: string }>;
  /** Child goals the delegate tool started that are still running (absent when none). */
  children?: Array<{ workflowId: string; task: string; workspace: string }>;
  awaitingReview: boolean;
  model?: string;
  /** With fallback models (model.fallbacks): which model answered which turns, the active one. */
  models?: ModelsView;
  /** The latest decision on a call: a human's denial is shown as theirs, not as a guard's. */
  lastDecision?: LastDecisionView;
  /** The latest approve/deny signal that changed nothing (counted in counters.approvalsIgnored). */
  lastIgnoredDecision?: IgnoredDecision;
  /** Decisions must be signed (goal input approvalSignatures); absent when they need not be. */
  signedApprovals?: boolean;
  /** Once the goal has ended: its result (also for endings whose workflow fails or is cancelled). */
  result?: GoalResult;
  /** The hard guards: decisions taken, whether checkpoints are enforced, the latest decision. */
  guards?: GuardsView;
  /** The workspace host the goal is bound to (absent until it binds, as it starts). */
  host?: HostView;
  /** The approval rules in force (`keel rules` lists revoked and expired ones too); absent when none. */
  rules?: RuleView[];
  /** Each recreation of the workspace after a move that lost writes of the goal; absent when none. */
  workspaceLoss?: WorkspaceLoss[];
  /** "forked from goal-x at turn 12": where a fork or a rewind came from; absent for goals started anew. */
  lineage?: string;
}

/** A rule in force as the status and the Web UI show it. */
export interface RuleView {
  id: string;
  /** `allow run_command: npm test*` (ruleText). */
  text: string;
  by: string;
  source: string;
}

export const goalStatusQuery = defineQuery<GoalStatusView>('status');
export const planQuery = defineQuery<Plan | undefined>('plan');
export const ledgerQuery = defineQuery<LedgerEvent[], [{ afterSequence?: number }?]>('ledger');
/** The tools this goal may use, as recorded at its start (`keel tools <goal>`); empty before. */
export const goalToolsQuery = defineQuery<ToolCatalogue>('tools');

/** Ask for a self-assessment at the next turn boundary, whatever the cadence says. */
export const assessNowSignal = defineSignal<[]>('assessNow');

export const reviewPayloadSchema = z
  .object({
    accepted: z.boolean(),
    reviewer: z.string().min(1).default('unknown'),
    notes: z.string().default(''),
  })
  .strict();
export type ReviewPayload = z.input<typeof reviewPayloadSchema>;
/** A human's review of the goal's output, for goals whose reflection asks for one. */
export const submitReviewUpdate = defineUpdate<{ accepted: boolean }, [ReviewPayload]>('submitReview');

/** Move a goal whose host is unavailable (or, carrying its workspace, alive) to another host (see docs/several-machines.md). */
export const rebindPayloadSchema = z
  .object({
    host: hostIdSchema,
    by: z.string().trim().min(1).default('unknown'),
    /** Move while the old host is alive, carrying the workspace to the new one (bounded in size). */
    carry: z.boolean().optional(),
  })
  .strict();
export type RebindPayload = z.input<typeof rebindPayloadSchema>;
export interface RebindReceipt {
  host: string;
  /** rebound: the host had the workspace; cloned: it was recreated there from the goal's git source. */
  via: 'rebound' | 'cloned' | 'probe' | 'named' | 'carried';
}
export const rebindHostUpdate = defineUpdate<RebindReceipt, [RebindPayload]>('rebindHost');

/**
 * A keel worker's host watcher saw a host turn missing (its workers stopped beating) or come
 * back (src/worker/host-watcher.ts). The goal only records and shows it: nothing moves, nothing runs
 * elsewhere. Several watchers may say it: a repeat changes nothing.
 */
export const hostLivenessPayloadSchema = z
  .object({
    host: hostIdSchema,
    state: z.enum(['missing', 'live']),
    /** missing: the host's last beat; live: when it was seen beating again (ISO 8601). */
    since: z.iso.datetime({ offset: true }),
    /** Who saw it (the watcher's worker instance). */
    by: z.string().trim().min(1).default('unknown'),
  })
  .strict();
export type HostLivenessPayload = z.input<typeof hostLivenessPayloadSchema>;
export const hostLivenessSignal = defineSignal<[HostLivenessPayload]>('hostLiveness');

/** The goal's workspace host, as the status query shows it. */
export interface HostView {
  id: string;
  queue: string;
  via: string;
  boundAt: string;
  /** The workspace's path on this host, when a move between hosts with different roots mapped it. */
  workspace?: string;
  /** While its workers take no calls: since when, and what a human can do. */
  unavailableSince?: string;
  /** While a host watcher says its workers stopped beating: their last beat, and who saw it. */
  missingSince?: string;
  missingSeenBy?: string;
  /** What a human can do while it is unavailable or missing. */
  actions?: string[];
  /** The goal has a git source: a rebind can clone its workspace on another host. */
  recreatable?: true;
}

export const DESCRIPTIONS = {
  approve:
    'Approve a pending tool call: {"callId": "...", "approver": "...", "reason": "...", "rule": {"pattern": "npm test*"} (optional: approve later matching calls at once), "signature": "(when the goal requires one)"}',
  deny: 'Deny a pending tool call: {"callId": "...", "approver": "...", "reason": "...", "doNotAskAgain": true (refuse this intent from now on without asking), "rule": {"pattern": "rm *"} (optional: refuse matching calls at once), "signature": "(when required)"}',
  decideApproval: 'Approve or deny a pending tool call and learn at once whether the decision was accepted',
  decideApprovals:
    'Decide several pending calls at once: {"decisions": [{"callId": "...", "approved": true, "approver": "..."}, ...]}; all are accepted or none',
  addApprovalRule:
    'Add a rule: {"effect": "allow" | "forbid", "tool": "run_command", "pattern": "npm test*", "approver": "...", "irreversible": false, "until": "(ISO time, optional)"}',
  revokeApprovalRule: 'Revoke a rule: {"ruleId": "rule-1", "approver": "..."}',
  approvalRules: "The goal's approval rules, in force and revoked",
  childApprovals: 'From a delegated child goal: the calls of its tree that wait for a human',
  parentRule:
    "From this goal's parent: a forbid rule added there after this goal started (only forbid rules are taken)",
  userMessage: 'Send a follow-up message; it starts a new task inside the goal: {"text": "..."}',
  status: 'Status, counters, pending approvals and the latest messages of the goal',
  plan: 'The current plan with step statuses and its attempt',
  ledger: 'Notable events of the goal (plans, checkpoints, approvals, budgets, reflections)',
  tools: 'The tools this goal may use (names, tiers, sources, input schemas), as recorded at its start',
  assessNow: 'Run a self-assessment at the next turn boundary',
  submitReview: 'Accept or reject the goal output (when its reflection asks for a human review)',
  hostLiveness:
    'Sent by keel workers when the goal\'s host stops beating or is back: {"host": "...", "state": "missing" | "live", "since": "(ISO time)", "by": "..."}; it is recorded and shown, nothing moves',
  rebindHost:
    'Move a goal whose workspace host is unavailable to another host that has (or can clone) the workspace: {"host": "...", "by": "..."}; with "carry": true, move a goal whose host is alive and take its workspace along',
} as const;

export * from './lineage/lineage-messages';
