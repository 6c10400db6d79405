import { z } from 'zod';

/**
 * The goal's event ledger: the notable decisions and happenings of a goal, kept in workflow
 * state so a query, `keel ledger <id>` and the Web UI can show *why* the goal did what it did.
 * It is bounded (workflow state travels through continue-as-new and history size is limited)
 * and pure: the caller supplies the time from the workflow clock, so replay is deterministic.
 */

export const LedgerEventKind = {
  GoalStarted: 'goal.started',
  /** The goal bound to the host holding its workspace (see hosts/host-binding.ts). */
  HostBound: 'host.bound',
  /** No worker of the goal's host took its calls in time; the goal waits (with what a human can do). */
  HostUnavailable: 'host.unavailable',
  HostAvailable: 'host.available',
  /** A human moved the goal to another host (Update rebindHost). */
  HostRebound: 'host.rebound',
  /** The host the goal moved to recreated its workspace from git; `lost` lists the goal's writes it lacks. */
  HostWorkspaceRecreated: 'host.workspace_recreated',
  /** A host watcher saw the goal's host stop beating (signal hostLiveness): nothing moved or ran elsewhere. */
  HostMissing: 'host.missing',
  /** The host beats again. */
  HostBack: 'host.back',
  PlanCreated: 'plan.created',
  PlanFailed: 'plan.failed',
  PlanBacktracked: 'plan.backtracked',
  /** Files changed by a failed plan were restored from the backup taken before it (a compensation). */
  PlanRolledBack: 'plan.rolled_back',
  /** A reply after a checkpoint was judged (response tracking). */
  ReflectionAnswered: 'reflection.answered',
  ReflectionCheckpoint: 'reflection.checkpoint',
  AgentReflected: 'agent.reflected',
  /** The goal waits for a human to accept or reject its output (reflection.review: human). */
  ReviewRequested: 'review.requested',
  ReviewCompleted: 'review.completed',
  TaskReflected: 'task.reflected',
  /** The reflection step failed; a fallback reflection carrying the error was stored instead. */
  TaskReflectionFailed: 'task.reflection_failed',
  ApprovalRequested: 'approval.requested',
  ApprovalDecided: 'approval.decided',
  ApprovalTimedOut: 'approval.timed_out',
  /** An approve/deny signal that changed nothing, and why (malformed, unknown call, unauthorized, bad signature). */
  ApprovalIgnored: 'approval.ignored',
  /**
   * A call refused without asking anyone: a human denied its intent earlier with doNotAskAgain
   * (data: the intent and that original decision).
   */
  ApprovalAutoDenied: 'approval.auto_denied',
  /** An approval rule was added (data: the rule, its source and maker); approvals/approval-rule.ts. */
  ApprovalRuleAdded: 'approval.rule_added',
  ApprovalRuleRevoked: 'approval.rule_revoked',
  /** A rule the goal could not take (a worker policy rule on a goal that requires signed decisions). */
  ApprovalRuleNotApplied: 'approval.rule_not_applied',
  /** A notice to the approvers reached one channel (data: call id, notice, channel, where, when sent). */
  NotificationSent: 'notification.sent',
  /** A notice one channel did not take, after its retries (data: the error); the goal went on. */
  NotificationFailed: 'notification.failed',
  /**
   * The goal's tool calls from this one on run on another worker process (instance) than before,
   * or on one for the first time: every call up to the next such event ran on it.
   */
  ToolInstance: 'tool.instance',
  /** An irreversible call may or may not have taken effect; `began` says what its journal knew. */
  ToolOutcomeUnknown: 'tool.outcome_unknown',
  /** A call started running (data: call id, tool, what it does); views/turn-events.ts. */
  ToolCalled: 'tool.called',
  /** A call that ran has its result (data: call id, tool, error or not, the result abridged). */
  ToolFinished: 'tool.finished',
  /** The transcript went over the goal's context budget; old blocks were elided (with the numbers). */
  ContextTrimmed: 'context.trimmed',
  /**
   * A model answer reached max_tokens: asked again with more room, its cut call answered unrun,
   * or the model asked to continue its text.
   */
  ModelAnswerCut: 'model.answer_cut',
  /** The API paused a long turn (pause_turn); it was sent back to go on. */
  ModelPaused: 'model.paused',
  /** The model's extended thinking in a turn, abridged (never shown as its answer). */
  ModelThought: 'model.thought',
  /** A model turn answered: its text abridged, the calls it asked for, the tokens used so far. */
  ModelAnswered: 'model.answered',
  /**
   * Turns go to another model from here on: a fallback after the model stayed overloaded or
   * rate-limited (model.fallbacks), or the primary again after its cool-down (goal/model-turn/fallback.ts).
   */
  ModelSwitched: 'model.switched',
  BudgetWarning: 'budget.warning',
  BudgetExhausted: 'budget.exhausted',
  HypothesisMismatch: 'hypothesis.mismatch',
  AssessmentCompleted: 'assessment.completed',
  /** A hard guard told the model directly what it saw (a loop, no progress, an ignored checkpoint, wrong hypotheses). */
  GuardWarned: 'guard.warned',
  /** Low checkpoint response rate: checkpoints are enforced from here on. */
  GuardEscalated: 'guard.escalated',
  /** A hard guard acted: the goal stops as stuck, or the active plan step fails and the plan backtracks. */
  GuardStopped: 'guard.stopped',
  /** The progress judge's verdict on a stretch of calls, with what it cost (progress-judge.ts). */
  JudgeVerdict: 'judge.verdict',
  /** A stalled goal was split into child goal workflows. */
  SubGoalsSpawned: 'subgoals.spawned',
  /** A child goal ended: how, the budget it was carved, and what it spent (counted as the parent's). */
  SubGoalFinished: 'subgoal.finished',
  /** The model delegated a task to a child goal: its id, tools, workspace scope and carved budget. */
  DelegateStarted: 'delegate.started',
  /** A delegated child goal ended: how, and what it spent (counted as the parent's). */
  DelegateFinished: 'delegate.finished',
  /** The workflow continued as new; the ledger went with it. */
  GoalContinuedAsNew: 'goal.continued_as_new',
  /** This goal is a fork of another at a turn (issue 48): whence, the files restored, irreversible calls after. */
  GoalForked: 'goal.forked',
  /** The turn's checkpoint found files changed outside keel since its last write (issue 48). */
  WorkspaceChangedOutside: 'workspace.changed_outside',
  /** This goal went back to an earlier turn in place, its files with it (issue 48). */
  GoalRewound: 'goal.rewound',
  /** A fork of this goal was started by its forkGoal Update: the fork's id, turn and workspace. */
  ForkStarted: 'goal.fork_started',
  /** A rewindGoal Update took this goal back: this run ends, and a new one goes on from the turn. */
  RewindRequested: 'goal.rewind_requested',
  /**
   * A guard or a limit stopped the goal and the model was asked, without tools, what was done and
   * what is left: `outcome` written (the report is the goal's final text), failed or skipped, with
   * why and the tokens it used. Recorded just before the goal's ending.
   */
  GoalClosingReport: 'goal.closing_report',
  GoalCompleted: 'goal.completed',
  GoalFailed: 'goal.failed',
  /** The goal ended as stuck: a hard guard stopped it (the guard.stopped event before it says why). */
  GoalStuck: 'goal.stuck',
  GoalCancelled: 'goal.cancelled',
} as const;
export type LedgerEventKind = (typeof LedgerEventKind)[keyof typeof LedgerEventKind];

const ledgerEventKinds = Object.values(LedgerEventKind) as [LedgerEventKind, ...LedgerEventKind[]];

export const LedgerEventSchema = z.lazy(() =>
  z.object({
    /** Monotonic across the whole goal, continue-as-new included; starts at 1. */
    sequence: z.number().int().positive(),
    /** ISO 8601 time from the workflow clock. */
    at: z.iso.datetime({ offset: true }),
    kind: z.enum(ledgerEventKinds),
    /** One human-readable line. */
    summary: z.string(),
    /** The decision's evidence (scores, deltas, reasons) as JSON-serialisable data. */
    data: z.record(z.string(), z.unknown()),
  }),
);
export type LedgerEvent = z.infer<typeof LedgerEventSchema>;

/** An event as the caller describes it; the ledger assigns the sequence. */
export type NewLedgerEvent = Omit<LedgerEvent, 'sequence' | 'data'> & { data?: LedgerEvent['data'] };

export const LEDGER_SCHEMA_VERSION = 1;
export const DEFAULT_MAX_LEDGER_EVENTS = 500;

export const LedgerSchema = z.lazy(() =>
  z.object({
    schemaVersion: z.literal(LEDGER_SCHEMA_VERSION),
    /** The newest events, oldest first. */
    events: z.array(LedgerEventSchema),
    /** Stored rather than derived from `events`, so sequences survive trimming and continue-as-new. */
    nextSequence: z.number().int().positive(),
    /** How many old events were trimmed to keep the ledger bounded. */
    dropped: z.number().int().nonnegative(),
  }),
);
export type Ledger = z.infer<typeof LedgerSchema>;

export function emptyLedger(): Ledger {
  return { schemaVersion: LEDGER_SCHEMA_VERSION, events: [], nextSequence: 1, dropped: 0 };
}

/**
 * Returns a new ledger with the event appended and only the newest `maxEvents` kept. The input
 * is never mutated, so a query handler can hand out the ledger it read.
 */
export function appendEvent(
  ledger: Ledger,
  event: NewLedgerEvent,
  options: { maxEvents?: number } = {},
): Ledger {
  const maxEvents = options.maxEvents ?? DEFAULT_MAX_LEDGER_EVENTS;
  if (!Number.isInteger(maxEvents) || maxEvents < 1) {
    throw new RangeError(`maxEvents must be a positive integer, got ${maxEvents}`);
  }
  const appended: LedgerEvent = {
    sequence: ledger.nextSequence,
    at: event.at,
    kind: event.kind,
    summary: event.summary,
    data: event.data ?? {},
  };
  const all = [...ledger.events, appended];
  const excess = Math.max(0, all.length - maxEvents);
  return {
    schemaVersion: LEDGER_SCHEMA_VERSION,
    events: all.slice(excess),
    nextSequence: ledger.nextSequence + 1,
    dropped: ledger.dropped + excess,
  };
}

/** Events with a sequence greater than `afterSequence`, for followers that poll the ledger. */
export function eventsAfter(ledger: Ledger, afterSequence: number): LedgerEvent[] {
  return ledger.events.filter((event) => event.sequence > afterSequence);
}
