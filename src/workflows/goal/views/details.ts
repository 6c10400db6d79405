import type { LineageLinks } from './lineage-links';
import { BudgetDimension, formatElapsed, formatInteger, formatUsd } from '../../principles/budget';
import { codeBlock, inlineCode } from './markdown-code';
import { childApprovalsSection } from './child-approvals-details';
import type { ChildApproval } from './child-approval-schema';
import type { ChildSpend } from '../oversight/child-budget';
import { cacheHitRate, inputTokensOfAllKinds } from '../../principles/cost';
import type {
  GoalCounters,
  GoalPhase,
  GoalStatus,
  IgnoredDecision,
  TokenUsageTotals,
} from '../lifecycle/state';
import type { GuardsView, HostView, PendingApprovalView, RuleView } from '../messages';
import { CONTINUATION_MARK, visibleText } from '../../tools/call-text';
import { heldChangesLines } from '../../tools/held-changes-text';
import { hostSection } from './host-details';
import { modelsLine, type ModelsView } from '../model-turn/fallback';

/** Tests and older callers import it from here; it lives with the other Markdown code. */
export { inlineCode } from './markdown-code';

/**
 * The markdown the Temporal Web UI shows as a goal's "current details": what the goal is doing,
 * what it has spent, and — first, because it is the one thing a reader may have to act on — each
 * pending approval, its whole call and the exact commands that approve it. Pure, so the workflow
 * can render it on every change and replay renders the same text.
 */

export interface GoalDetailsPlanStep {
  index: number;
  toolName: string;
  rationale: string;
  status: string;
}

export interface GoalDetailsPlan {
  attempt: number;
  strategy: string;
  steps: GoalDetailsPlanStep[];
}

export interface GoalDetailsInput {
  workflowId: string;
  status: GoalStatus;
  phase: GoalPhase;
  goal: string;
  task: { index: number; text: string };
  counters: GoalCounters;
  usage: TokenUsageTotals;
  /** When the goal started and when these details were written (workflow clock, epoch ms). */
  startedAtMs: number;
  writtenAtMs: number;
  usdEstimate?: number;
  budget?: Array<{ dimension: string; spent: number; limit: number }>;
  /** What the goal's sub-goals spent, already in usdEstimate and the budget (child-budget.ts). */
  childSpend?: ChildSpend;
  plan?: GoalDetailsPlan;
  lastCheckpoint?: { atToolCall: number; at: string };
  pendingApprovals: PendingApprovalView[];
  /** Calls its children (and theirs) wait on, decided from here by their qualified ids. */
  childApprovals?: Array<ChildApproval & { qualifiedId: string }>;
  /** The goal requires signed decisions: only `keel approve --sign-key` can approve. */
  signedApprovals?: boolean;
  lastIgnoredDecision?: IgnoredDecision;
  /** The goal waits for a human to accept or reject its output (reflection.review: human). */
  awaitingHumanReview?: boolean;
  /** The hard guards' latest decision (from the ledger), and whether checkpoints are enforced. */
  guards?: GuardsView;
  /** The workspace host, and while it is away what a human can do. */
  host?: HostView;
  /** Why the goal ended, once it has. */
  endReason?: string;
  /** What the model said it did and left undone when a guard or a limit stopped the goal. */
  closingReport?: string;
  /** The approval rules in force. */
  rules?: RuleView[];
  /** With fallback models: which model answered which turns. */
  models?: ModelsView;
  /** Where a fork or a rewind came from (lineage.ts lineageLine). */
  lineage?: string;
  /** The original's page and the list of forks, in the Web UI (lineage-links.ts). */
  links?: LineageLinks;
}

/** The panel is small: long goal and task texts are cut, the static summary has the goal anyway. */
const TEXT_PREVIEW_CHARS = 160;
/** Characters per line of a call's code block; longer lines wrap (see wrapped). */
const CALL_LINE_CHARACTERS = 80;

export function renderGoalDetails(input: GoalDetailsInput): string {
  const sections = [
    heading(input),
    closingReportSection(input),
    hostSection(input.host, input.pendingApprovals.length),
    pendingApprovalsSection(input),
    childApprovalsSection(input.workflowId, input.childApprovals),
    rulesSection(input.rules),
    reviewSection(input),
    countersSection(input),
    budgetSection(input),
    planSection(input.plan),
    checkpointLine(input.lastCheckpoint),
    guardsSection(input.guards),
  ];
  return sections.filter((section) => section !== undefined).join('\n\n');
}

function heading(input: GoalDetailsInput): string {
  const lines = [`### Goal ${input.status} · ${input.phase}`, `**Goal:** ${preview(input.goal)}`];
  // Task 1 is the goal itself; later tasks are follow-up messages worth naming.
  if (input.task.index > 0) lines.push(`**Task ${input.task.index + 1}:** ${preview(input.task.text)}`);
  const original = input.links?.original;
  if (input.lineage !== undefined)
    lines.push(
      `**Lineage:** ${preview(input.lineage)}${original === undefined ? '' : ` · [the original](${original})`}`,
    );
  if (input.links !== undefined) lines.push(`**Forks:** [goals forked from this one](${input.links.forks})`);
  // Two trailing spaces: a markdown line break, so the lines stay apart without list bullets.
  return lines.join('  \n');
}

/** The model's own words: in a code block, nothing hidden, so its text cannot pass for keel's. */
function closingReportSection(input: GoalDetailsInput): string | undefined {
  if (input.closingReport === undefined) return undefined;
  const stop = input.endReason === undefined ? [] : [`**Stopped:** ${preview(input.endReason)}`];
  // One block (no blank lines): a fenced block may follow a paragraph line directly.
  return ['#### Closing report', ...stop, codeBlock(wrapped(visibleText(input.closingReport)))].join('\n');
}

function pendingApprovalsSection(input: GoalDetailsInput): string | undefined {
  if (input.pendingApprovals.length === 0) return undefined;
  const blocks = [`#### Pending approvals (${input.pendingApprovals.length})`];
  for (const approval of input.pendingApprovals) {
    blocks.push(
      `${inlineCode(visibleText(oneLine(approval.summary), { oneLine: true }))} — ${approval.reversibility}, call ${inlineCode(approval.callId)}, until ${approval.deadline}`,
    );
    // The label is cut; the block under it is the whole call, which is what is approved.
    blocks.push(codeBlock(wrapped(approval.call)));
    if (approval.reason !== undefined)
      blocks.push(`Why it waits: ${inlineCode(visibleText(oneLine(approval.reason), { oneLine: true }))}`);
    if (approval.heldChanges !== undefined) {
      // What approval applies: the call already ran, on a copy-on-write layer.
      blocks.push(
        `Ran on a copy-on-write layer; approving applies these changes, denying discards them:\n\n${codeBlock(wrapped(heldChangesLines(approval.heldChanges).join('\n')))}`,
      );
    }
    // A flat list of inline code after each approval: the Web UI's panel shows nested lists run
    // together, and inline code wraps where a fenced block would hide the long signal command
    // behind a scroll bar. The paragraphs between keep one approval's list from merging with
    // the next one's.
    const [keelCommand = '', temporalCommand] = approveCommands(input.workflowId, approval.callId, {
      signed: input.signedApprovals === true,
    });
    // The Web UI line is the signal's Data as is: pasted into Send a Signal › approve, no quoting.
    const webUi =
      temporalCommand === undefined
        ? ''
        : `\n- or in this Web UI: More Actions › Send a Signal › approve, Data: ${inlineCode(JSON.stringify({ callId: approval.callId, approver: 'YOUR_NAME' }))}`;
    blocks.push(
      `- approve: ${inlineCode(keelCommand)}${temporalCommand === undefined ? '' : `\n- or: ${inlineCode(temporalCommand)}`}${webUi}\n- approve it and later calls like it: ${inlineCode(`${keelCommand} --rule 'PATTERN'${approval.reversibility === 'irreversible' ? ' --irreversible' : ''}`)}`,
    );
  }
  return blocks.join('\n\n');
}

/** The rules that decide calls without asking: a human reading the panel must see them. */
function rulesSection(rules: readonly RuleView[] | undefined): string | undefined {
  if (rules === undefined || rules.length === 0) return undefined;
  return [
    `#### Approval rules in force (${rules.length})`,
    ...rules.map(
      (rule) =>
        `- ${inlineCode(rule.id)} ${inlineCode(visibleText(oneLine(rule.text), { oneLine: true }))} by ${inlineCode(visibleText(oneLine(rule.by), { oneLine: true }))} (${rule.source})`,
    ),
  ].join('\n');
}

/** Calls rules decided, as a clause of the approvals line; empty when none (older goals read alike). */
function byRules(counters: GoalCounters): string {
  const approved = counters.approvalsByRule ?? 0;
  const refused = counters.refusalsByRule ?? 0;
  return `${approved > 0 ? `, ${approved} approved by a rule` : ''}${refused > 0 ? `, ${refused} refused by a rule` : ''}`;
}

function reviewSection(input: GoalDetailsInput): string | undefined {
  if (!input.awaitingHumanReview) return undefined;
  const id = shellWord(input.workflowId);
  const update = JSON.stringify({ accepted: true, reviewer: 'YOUR_NAME', notes: '' });
  return [
    '#### Waiting for a human review of the output',
    `- accept: ${inlineCode(`keel review ${id} --accept`)}`,
    `- reject: ${inlineCode(`keel review ${id} --reject --notes 'why'`)}`,
    `- or: ${inlineCode(`temporal workflow update execute --workflow-id ${id} --name submitReview --input ${shellQuote(update)}`)}`,
  ].join('\n');
}

/**
 * The ways to approve one call: keel's CLI and the plain Temporal CLI, with the approver to fill
 * in (every decision names one). A goal that requires signatures can only be approved with a key.
 */
export function approveCommands(
  workflowId: string,
  callId: string,
  options: { signed?: boolean } = {},
): string[] {
  const keel = `keel approve ${shellWord(workflowId)} ${shellWord(callId)}`;
  if (options.signed) return [`${keel} --approver YOUR_NAME --sign-key YOUR_KEY_FILE`];
  const signalInput = JSON.stringify({ callId, approver: 'YOUR_NAME' });
  return [
    keel,
    `temporal workflow signal --workflow-id ${shellWord(workflowId)} --name approve --input ${shellQuote(signalInput)}`,
  ];
}

/**
 * "1,200 in, 300 out" and, once the prompt cache is used, how much of the input it served:
 * "12,000 in (85% read from the cache: 10,200 read, 1,500 written, 300 uncached), 400 out".
 */
export function tokenUsageText(usage: TokenUsageTotals): string {
  const input = inputTokensOfAllKinds(usage);
  const out = `${formatInteger(usage.outputTokens)} out`;
  if (usage.cacheCreationInputTokens + usage.cacheReadInputTokens === 0)
    return `${formatInteger(input)} in, ${out}`;
  const rate = Math.round(cacheHitRate(usage) * 100);
  return `${formatInteger(input)} in (${rate}% read from the cache: ${formatInteger(usage.cacheReadInputTokens)} read, ${formatInteger(usage.cacheCreationInputTokens)} written, ${formatInteger(usage.inputTokens)} uncached), ${out}`;
}

function countersSection(input: GoalDetailsInput): string {
  const counters = input.counters;
  const byTier = counters.toolCallsByReversibility;
  const cost = input.usdEstimate !== undefined ? ` · ~${usdText(input.usdEstimate)}` : '';
  // A heading of its own: two lists separated only by a blank line would merge into one.
  return [
    '#### Progress',
    `- ${timeLine(input)} · model turns ${counters.modelTurns}`,
    `- Tool calls ${counters.toolCalls}: read-only ${byTier['read-only']}, mutating ${byTier.mutating}, irreversible ${byTier.irreversible}`,
    `- Approvals: ${counters.approvalsRequested} requested, ${counters.approvalsGranted} granted, ${counters.approvalsDenied} denied, ${counters.approvalsTimedOut} timed out${counters.approvalsAutoDenied > 0 ? `, ${counters.approvalsAutoDenied} refused without asking (denied before)` : ''}${byRules(counters)}`,
    `- Tokens: ${tokenUsageText(input.usage)}${cost}`,
    ...(input.models ? [`- ${modelsLine(input.models)}`] : []),
    ...(input.childSpend && input.childSpend.children > 0 ? [`- ${childSpendLine(input.childSpend)}`] : []),
    ...(counters.approvalsIgnored > 0
      ? [`- Ignored decisions: ${counters.approvalsIgnored}${ignoredDetail(input.lastIgnoredDecision)}`]
      : []),
    ...(counters.unknownOutcomes > 0
      ? [`- Unknown outcomes: ${counters.unknownOutcomes} (worker stopped mid-call)`]
      : []),
  ].join('\n');
}

/** The sub-goals' share: the counts above are the goal's own, its cost and budget include them. */
function childSpendLine(children: ChildSpend): string {
  const unknown = children.unknown > 0 ? `, ${children.unknown} without a result` : '';
  return `Sub-goals ${children.children}${unknown}: tool calls ${formatInteger(children.toolCalls)}, tokens ${formatInteger(children.tokens)}, ~${usdText(children.usd)} (in the cost and the budget)`;
}

/**
 * The panel is written only when something changes, so it must not show a running clock: the start
 * time, and the time it took as of the moment it was written (or until the goal ended).
 */
function timeLine(input: GoalDetailsInput): string {
  const took = formatElapsed(input.writtenAtMs - input.startedAtMs);
  const started = `Started ${clockTime(input.startedAtMs)}`;
  return input.status === 'running'
    ? `${started}; ${took} in as of ${clockTime(input.writtenAtMs)}`
    : `${started}; ended ${clockTime(input.writtenAtMs)}, after ${took}`;
}

/** "2030-01-01 00:05:00 UTC": seconds are enough, and the zone is said. */
function clockTime(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/**
 * "0.0024 USD", never "$0.0024": the Web UI's markdown reads a pair of dollar signs as inline
 * math and renders "\(0.0024 of \)0.01".
 */
function usdText(amount: number): string {
  return `${formatUsd(amount).replace('$', '')} USD`;
}

/** The latest ignored approve/deny signal in one line: what a sender who saw "succeeded" missed. */
export function ignoredDetail(last: IgnoredDecision | undefined): string {
  if (!last) return '';
  const about = [
    last.callId === undefined ? undefined : `call ${last.callId}`,
    last.approver === undefined ? undefined : `from ${last.approver}`,
  ].filter((part) => part !== undefined);
  const context = about.length > 0 ? ` (${about.join(', ')})` : '';
  return `, last: ${last.reason} — ${oneLine(last.message)}${context} at ${last.at}`;
}

function budgetSection(input: GoalDetailsInput): string | undefined {
  if (!input.budget || input.budget.length === 0) return undefined;
  const lines = ['#### Budget'];
  for (const { dimension, spent, limit } of input.budget) {
    const percent = limit > 0 ? `${Math.floor((spent / limit) * 100)}%` : 'n/a';
    lines.push(
      `- ${dimension}: ${percent} (${formatAmount(dimension, spent)} of ${formatAmount(dimension, limit)})`,
    );
  }
  return lines.join('\n');
}

/** An amount of one budget dimension as people read it: $0.42, 3m 30s, 12,000. */
export function formatAmount(dimension: string, amount: number): string {
  switch (dimension) {
    case BudgetDimension.Usd:
      return usdText(amount);
    case BudgetDimension.WallTime:
      return formatElapsed(amount);
    default:
      return Number.isInteger(amount) ? formatInteger(amount) : String(amount);
  }
}

/** Markers read at a glance; failed and skipped also say so in words, their symbols are less known. */
const STEP_MARKERS: Readonly<Record<string, string>> = {
  pending: '○',
  active: '▶',
  completed: '✓',
  failed: '✗ failed:',
  skipped: '⊘ skipped:',
};

function planSection(plan: GoalDetailsPlan | undefined): string | undefined {
  if (!plan) return undefined;
  const lines = [`#### Plan — attempt ${plan.attempt}, strategy ${plan.strategy}`];
  if (plan.steps.length === 0) lines.push('- (no steps)');
  for (const step of plan.steps) {
    const marker = STEP_MARKERS[step.status] ?? `[${step.status}]`;
    lines.push(`- ${marker} ${step.index + 1}. ${inlineCode(step.toolName)} — ${preview(step.rationale)}`);
  }
  return lines.join('\n');
}

function checkpointLine(checkpoint: GoalDetailsInput['lastCheckpoint']): string | undefined {
  if (!checkpoint) return undefined;
  return `**Last checkpoint:** after tool call ${checkpoint.atToolCall}, at ${checkpoint.at}`;
}

/** Why a guard acted, in the words of its ledger event: the first thing to read on a stuck goal. */
function guardsSection(guards: GuardsView | undefined): string | undefined {
  if (!guards || (guards.decisions === 0 && !guards.checkpointsEnforced)) return undefined;
  const lines = [`#### Guards (${guards.decisions} decision${guards.decisions === 1 ? '' : 's'})`];
  if (guards.checkpointsEnforced) lines.push('- checkpoints are enforced (low response rate)');
  if (guards.last)
    lines.push(`- last: ${inlineCode(guards.last.kind)} ${preview(guards.last.summary)} (${guards.last.at})`);
  return lines.join('\n');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function preview(text: string): string {
  const line = oneLine(text);
  return line.length > TEXT_PREVIEW_CHARS ? `${line.slice(0, TEXT_PREVIEW_CHARS - 1)}…` : line;
}

/**
 * The Web UI does not wrap a code block: a long line runs past the panel's edge, and what follows
 * a long `echo` is out of sight. A longer line is broken after CALL_LINE_CHARACTERS, and each
 * further piece goes on a line of its own that starts with the continuation mark (escaped in the
 * call text, so a line of the call itself never starts with it). Nothing is dropped.
 */
function wrapped(text: string): string {
  const lines: string[] = [];
  for (const line of text.split('\n')) {
    const characters = Array.from(line); // whole code points: a surrogate pair is never split
    lines.push(characters.slice(0, CALL_LINE_CHARACTERS).join(''));
    const rest = CALL_LINE_CHARACTERS - CONTINUATION_MARK.length - 1;
    for (let start = CALL_LINE_CHARACTERS; start < characters.length; start += rest)
      lines.push(`${CONTINUATION_MARK} ${characters.slice(start, start + rest).join('')}`);
  }
  return lines.join('\n');
}

/** Ids are usually plain; anything else is quoted so the command can be pasted as is. */
function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : shellQuote(word);
}

function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}
