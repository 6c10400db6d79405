import { lineageLine } from '../lineage/lineage';
import { lineageLinks } from './lineage-links';
import { whyItWaits } from '../../approvals/why-it-waits';
import { ANYONE } from '../../approvals/approval-authority';
import { decisionTier } from '../../approvals/decision-tier';
import type { Reversibility } from '../../tools/reversibility';
import { isInForce } from '../../approvals/rule-book';
import { ruleText } from '../../approvals/approval-rule';
import { budgetUses, resolveBudget, type Budget } from '../../principles/budget';
import { cacheHitRate } from '../../principles/cost';
import type { GoalDetailsInput } from './details';
import { GoalPhase, GoalStatus, type GoalState } from '../lifecycle/state';
import type { GoalResult } from '../lifecycle/result';
import type {
  GoalStats,
  GoalStatusView,
  GuardsView,
  HostView,
  LastDecisionView,
  PendingApprovalView,
  RuleView,
} from '../messages';
import { LedgerEventKind } from '../../common/ledger';
import { unavailableActions } from '../../hosts/host-binding';
import { workspaceLossLine } from '../../hosts/workspace-writes';
import { currentHostLoss } from '../../hosts/host-loss';
import { costPicture } from '../../principles/principles';
import { qualifiedCallId } from './child-approval-schema';
import { withChildSpend } from '../oversight/child-budget';
import { explorationRatio, reflectionResponseRate } from '../../reflection/reflection-response';
import { rawFallbackRate } from '../../common/structured-output';
import type { SearchAttributeValues } from './search-attribute-values';
import { describeMessage } from '../../common/transcript';
import { callText } from '../../tools/call-text';
import { endsWithReport } from '../model-turn/closing-report';
import { costByModel, type ModelsView } from '../model-turn/fallback';

/**
 * Read-only projections of the goal state: the status query, the Web UI's current details, the
 * search attributes. Pure, so what a human sees is derived from state alone and never drifts.
 */
export function pendingApprovals(state: GoalState): PendingApprovalView[] {
  return (state.currentTurn ?? [])
    .filter((call) => call.status === 'awaiting-approval' && call.approval && !call.approval.decision)
    .map((call) => ({
      callId: call.callId,
      toolName: call.toolName,
      summary: call.summary,
      call: callText(call.input),
      reversibility: call.reversibility,
      input: call.input,
      requestedAt: call.approval?.requestedAt ?? '',
      deadline: new Date(call.approval?.deadlineMs ?? 0).toISOString(),
      reason: whyItWaits(call),
      ...(call.escalation?.changes === undefined ? {} : { heldChanges: call.escalation.changes }),
      ...(call.escalation?.diff === undefined ? {} : { heldDiff: call.escalation.diff }),
      ...approversOf(state, call.reversibility),
    }));
}

/** Who may decide a call held at this tier; nothing when anyone may. */
function approversOf(state: GoalState, reversibility: Reversibility): { approvers?: string[] } {
  const listed = state.config.approvers[decisionTier(reversibility)];
  return listed.includes(ANYONE) ? {} : { approvers: [...listed] };
}

/**
 * The budget the goal runs under: its own limits, and for each dimension it leaves open the
 * worker's default (KEEL_BUDGET_*, read once at the goal's start and kept in its state); when
 * neither limits cost or tokens, keel's default cost (budget.ts DEFAULT_MAX_USD, with a token
 * backstop only for a model keel cannot price) unless the goal asked for none.
 */
export function effectiveBudget(state: GoalState): Budget | undefined {
  return resolveBudget(state.config.principles.budget, state.workerDefaults.budget);
}

export function goalCost(state: GoalState, nowMs: number) {
  const picture = costPicture({
    usage: state.usage,
    model: state.config.model.name,
    settings: state.config.principles,
    elapsedMs: nowMs - state.startedAtMs,
    toolCalls: state.counters.toolCalls,
  });
  let own = picture;
  if (state.models !== undefined) {
    // Fallback models: each model's tokens at its own rates (budgets count the same sum).
    const { usd, priced } = modelCosts(state);
    own = { ...picture, usd, priced, spent: { ...picture.spent, usd } };
  }
  if (state.childSpend === undefined) return own;
  // Child goals spend from this goal's budget (child-budget.ts): its cost is theirs too.
  const spent = withChildSpend(own.spent, state.childSpend);
  return { ...own, usd: spent.usd, spent };
}

function modelCosts(state: GoalState) {
  const prices = state.config.principles.prices;
  return costByModel({
    choice: state.models ?? { active: 0, since: 0, runs: [], runsDropped: 0, usage: {} },
    total: state.usage,
    primary: state.config.model.name,
    ...(prices === undefined ? {} : { prices }),
  });
}

/** The models of a goal with fallbacks: turns by model, the active one, cost by model. */
export function modelsView(state: GoalState): ModelsView | undefined {
  const choice = state.models;
  if (choice === undefined) return undefined;
  const chain = [state.config.model.name, ...(state.config.model.fallbacks ?? [])];
  return {
    active: chain[choice.active] ?? state.config.model.name,
    fallback: choice.active !== 0,
    since: choice.since,
    runs: choice.runs,
    runsDropped: choice.runsDropped,
    usdByModel: modelCosts(state).byModel,
  };
}

export function goalStats(state: GoalState, nowMs: number): GoalStats {
  const cadence = state.principles.cadence;
  const byTier = state.counters.toolCallsByReversibility;
  const cost = goalCost(state, nowMs);
  const tracked = state.config.principles.cadence.trackResponses || state.config.principles.cadence.enforce;
  const rate = tracked
    ? reflectionResponseRate({ checkpoints: cadence.checkpoints, addressed: cadence.addressed })
    : undefined;
  return {
    hypothesesGiven: state.principles.hypotheses.given,
    hypothesisMismatches: state.principles.hypotheses.mismatches,
    checkpoints: cadence.checkpoints,
    checkpointsAddressed: cadence.addressed,
    ...(rate !== undefined ? { reflectionResponseRate: rate } : {}),
    explorationRatio: explorationRatio({
      readOnlyCalls: byTier['read-only'],
      mutatingCalls: byTier.mutating + byTier.irreversible,
    }).ratio,
    usdEstimate: cost.usd,
    usdPriced: cost.priced,
    cacheHitRate: cacheHitRate(state.usage),
    elapsedMs: cost.spent.wallTimeMs,
    structuredCalls: state.structured.calls,
    rawFallbackRate: rawFallbackRate(
      Array.from({ length: state.structured.calls }, (_, index) => index < state.structured.rawFallbacks),
    ),
    assessments: state.assessment.count,
    consolidations: state.assessment.consolidations,
  };
}

/** How the goal ended, as the workflow returns it (or carries it in its failure's details). */
export function goalResultOf(state: GoalState, nowMs: number): GoalResult {
  const loss = state.workspaceLoss ?? [];
  // A goal that lost writes when it moved says so in its reason, which every client prints.
  const reasons = [
    ...(state.endReason === undefined ? [] : [state.endReason]),
    ...loss.map(workspaceLossLine),
  ];
  const reason = reasons.length === 0 ? undefined : reasons.join('; ');
  return {
    status: state.status,
    ...(reason !== undefined ? { reason } : {}),
    ...(state.finalText !== undefined ? { finalText: state.finalText } : {}),
    counters: state.counters,
    usage: state.usage,
    tasks: state.tasks.length,
    stats: goalStats(state, nowMs),
    ...(state.planning.plan ? { planAttempt: state.planning.plan.attempt } : {}),
    ...(state.reflection.outcome ? { reflection: state.reflection.outcome } : {}),
    ...(loss.length > 0 ? { workspaceLoss: loss } : {}),
    ...(state.models === undefined ? {} : { models: modelsView(state) }),
    ...(state.childSpend ? { childSpend: state.childSpend } : {}),
    ...(state.workspaceWrites ? { workspaceWrites: state.workspaceWrites } : {}),
  };
}

/** The guards' count, enforcement and latest ledger event; undefined before any guard state exists. */
export function guardsView(state: GoalState): GuardsView | undefined {
  const guards = state.guards;
  if (!guards) return undefined;
  // The denials guard's warning repeats a refusal to the model; the refusal is the approver's
  // decision (or a rule's), shown as such in lastDecision, not as the guard's (issue 46). A
  // denials stop is the guard's own decision and stays.
  const last = [...state.ledger.events]
    .reverse()
    .find(
      (event) =>
        event.kind.startsWith('guard.') &&
        !(event.kind === LedgerEventKind.GuardWarned && event.data.guard === 'denials'),
    );
  return {
    decisions: guards.decisions,
    checkpointsEnforced: guards.checkpoints.escalated,
    ...(last ? { last: { kind: last.kind, summary: last.summary, at: last.at } } : {}),
  };
}

/** The latest approval.decided event: who decided which call, and why. */
export function lastDecisionView(state: GoalState): LastDecisionView | undefined {
  const last = [...state.ledger.events]
    .reverse()
    .find((event) => event.kind === LedgerEventKind.ApprovalDecided);
  if (!last) return undefined;
  const reason =
    typeof last.data.reason === 'string' && last.data.reason !== '' ? last.data.reason : undefined;
  return { summary: last.summary, at: last.at, ...(reason === undefined ? {} : { reason }) };
}

/** The bound host; while it is away or missing, since when and what a human can do. */
export function hostView(state: GoalState, workflowId: string): HostView | undefined {
  const host = state.host;
  if (host === undefined) return undefined;
  const missing = currentHostLoss(state.hostMissing, host.id);
  const away = host.unavailableSince !== undefined || missing !== undefined;
  return {
    id: host.id,
    queue: host.queue,
    via: host.via,
    boundAt: host.boundAt,
    ...(host.workspace === undefined ? {} : { workspace: host.workspace }),
    ...(host.unavailableSince === undefined ? {} : { unavailableSince: host.unavailableSince }),
    ...(missing === undefined ? {} : { missingSince: missing.since, missingSeenBy: missing.by }),
    ...(state.config.workspaceSource === undefined ? {} : { recreatable: true as const }),
    ...(away
      ? {
          actions: unavailableActions({
            workflowId,
            canRecreate: state.config.workspaceSource !== undefined,
          }),
        }
      : {}),
  };
}

export function budgetUse(state: GoalState, nowMs: number): GoalStatusView['budget'] {
  const budget = effectiveBudget(state);
  if (!budget) return undefined;
  return budgetUses(budget, goalCost(state, nowMs).spent);
}

export function statusView(
  state: GoalState,
  options: { nowMs: number; awaitingReview: boolean; workflowId: string },
): GoalStatusView {
  const host = hostView(state, options.workflowId);
  const task = state.tasks[state.tasks.length - 1] ?? { index: 0, text: state.config.goal };
  const budget = budgetUse(state, options.nowMs);
  const lastCheckpoint = state.principles.cadence.lastCheckpoint;
  const guards = guardsView(state);
  const lastDecision = lastDecisionView(state);
  const rules = rulesInForce(state, options.nowMs);
  const children = (state.delegations?.running ?? []).map(({ workflowId, task, workspace }) => ({
    workflowId,
    task,
    workspace,
  }));
  const childApprovals = Object.values(state.childApprovals ?? {})
    .flat()
    .map((call) => ({ ...call, qualifiedId: qualifiedCallId(options.workflowId, call) }));
  return {
    goal: state.config.goal,
    status: state.status,
    phase: state.phase,
    task: { index: task.index, text: task.text },
    counters: state.counters,
    usage: state.usage,
    pendingApprovals: pendingApprovals(state),
    latestMessages: state.transcript.slice(-8).map((message) => describeMessage(message)),
    ...(state.finalText !== undefined ? { finalText: state.finalText } : {}),
    ...(state.endReason !== undefined ? { endReason: state.endReason } : {}),
    continuedAsNew: state.continuedAsNew,
    stats: goalStats(state, options.nowMs),
    priority: state.assessment.priority,
    ...(state.planning.plan ? { plan: state.planning.plan } : {}),
    ...(lastCheckpoint ? { lastCheckpoint } : {}),
    ...(budget ? { budget } : {}),
    ...(state.childSpend ? { childSpend: state.childSpend } : {}),
    ...(children.length > 0 ? { children } : {}),
    ...(childApprovals.length > 0 ? { childApprovals } : {}),
    awaitingReview: options.awaitingReview,
    ...(state.lastModel !== undefined ? { model: state.lastModel } : {}),
    ...(state.models === undefined ? {} : { models: modelsView(state) }),
    ...(lastDecision ? { lastDecision } : {}),
    ...(state.lastIgnoredDecision ? { lastIgnoredDecision: state.lastIgnoredDecision } : {}),
    ...(state.config.approvalSignatures ? { signedApprovals: true } : {}),
    ...(state.status !== GoalStatus.Running ? { result: goalResultOf(state, options.nowMs) } : {}),
    ...(guards ? { guards } : {}),
    ...(host ? { host } : {}),
    ...(state.workspaceLoss ? { workspaceLoss: state.workspaceLoss } : {}),
    ...(rules.length > 0 ? { rules } : {}),
    ...(state.lineage === undefined ? {} : { lineage: lineageLine(state.lineage) }),
  };
}

/** The rules in force now, as views show them. */
function rulesInForce(state: GoalState, nowMs: number): RuleView[] {
  return (state.approvalRules?.rules ?? [])
    .filter((rule) => isInForce(rule, nowMs))
    .map((rule) => ({ id: rule.id, text: ruleText(rule), by: rule.by, source: rule.source }));
}

export function detailsInput(
  state: GoalState,
  options: { workflowId: string; nowMs: number; namespace?: string },
): GoalDetailsInput {
  const view = statusView(state, {
    nowMs: options.nowMs,
    awaitingReview: false,
    workflowId: options.workflowId,
  });
  return {
    workflowId: options.workflowId,
    status: state.status,
    phase: view.phase,
    goal: view.goal,
    task: view.task,
    counters: view.counters,
    usage: view.usage,
    startedAtMs: state.startedAtMs,
    writtenAtMs: options.nowMs,
    ...(view.stats.usdPriced ? { usdEstimate: view.stats.usdEstimate } : {}),
    ...(view.budget ? { budget: view.budget } : {}),
    ...(view.childSpend ? { childSpend: view.childSpend } : {}),
    ...(view.plan ? { plan: view.plan } : {}),
    ...(view.lastCheckpoint ? { lastCheckpoint: view.lastCheckpoint } : {}),
    pendingApprovals: view.pendingApprovals,
    ...(view.childApprovals ? { childApprovals: view.childApprovals } : {}),
    ...(view.signedApprovals ? { signedApprovals: true } : {}),
    ...(view.lastIgnoredDecision ? { lastIgnoredDecision: view.lastIgnoredDecision } : {}),
    ...(awaitsHumanReview(state) ? { awaitingHumanReview: true } : {}),
    ...(view.guards ? { guards: view.guards } : {}),
    ...(view.host ? { host: view.host } : {}),
    ...(view.rules ? { rules: view.rules } : {}),
    ...(view.models ? { models: view.models } : {}),
    ...(view.lineage === undefined ? {} : { lineage: view.lineage }),
    ...(options.namespace === undefined
      ? {}
      : { links: lineageLinks(options.namespace, options.workflowId, state.lineage) }),
    ...(view.endReason !== undefined ? { endReason: view.endReason } : {}),
    ...(view.finalText !== undefined && endsWithReport(state.status)
      ? { closingReport: view.finalText }
      : {}),
  };
}

/** Reviewing, with a human to decide and no decision yet (the workflow's own flag is not state). */
function awaitsHumanReview(state: GoalState): boolean {
  return (
    state.phase === GoalPhase.Reviewing &&
    state.config.reflection.review === 'human' &&
    state.reflection.review === undefined
  );
}

/** The search attributes' values; KeelCostUsd is the goal's spend and its children's. */
export function searchAttributeValuesOf(state: GoalState): SearchAttributeValues {
  return {
    status: state.status,
    phase: state.phase,
    toolCalls: state.counters.toolCalls,
    planAttempt: state.planning.plan?.attempt ?? 0,
    pendingApprovals: pendingApprovals(state).length,
    priority: state.assessment.priority,
    ...(state.host === undefined ? {} : { host: state.host.id }),
    costUsd: goalCost(state, Date.now()).spent.usd,
  };
}
