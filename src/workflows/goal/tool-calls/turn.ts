import { requiresHumanApproval } from './approval-policy';
import type { GoalConfig } from '../lifecycle/input';
import type { ApprovalDecision, ToolCallRecord } from '../lifecycle/state';
import { formatToolResult } from '../../tools/format-tool-result';
import {
  checkHarnessCall,
  isHarnessTool,
  offeredHarnessTools,
  type HarnessOffer,
} from '../../tools/harness-tools';
import { childTools, mayDelegate } from '../../delegation/delegation';
import { DELEGATE_TOOL, delegateInputSchema } from '../../tools/delegate-spec';
import { catalogueEntry, type PreparedCall, type ToolCatalogue } from '../../tools/tool-catalogue';
import { denialAlternatives } from '../../tools/denial-alternatives';
import type { ToolResultBlock } from '../../common/transcript';
import type { NamedCall } from './call-ids';

/**
 * One model turn's tool calls as data. Each call moves awaiting-approval → ready → running → done;
 * because the turn is plain state, a goal can continue-as-new while calls wait for a human and
 * pick up exactly where it stopped.
 */
export function planTurn(options: {
  /** The reply's calls, named by keel (goal/tool-calls/call-ids.ts). */
  calls: readonly NamedCall[];
  config: GoalConfig;
  /** The goal's recorded tools; a call to any other name is answered without running. */
  catalogue: ToolCatalogue;
  /** Each catalogue call as prepared (input, tier, label) by the worker or the workflow, by call id. */
  prepared: readonly PreparedCall[];
  toolCallsSoFar: number;
  nowMs: number;
}): ToolCallRecord[] {
  const { calls, config, nowMs } = options;
  let remainingCalls = config.limits.maxToolCalls - options.toolCallsSoFar;
  const offered = offeredToolNames(options.catalogue, config);
  const preparedById = new Map(options.prepared.map((call) => [call.callId, call]));
  return calls.map(({ callId, toolUse }): ToolCallRecord => {
    const base = recordBase({ callId, toolUse });
    if (isHarnessTool(toolUse.name) && offered.includes(toolUse.name)) {
      const checked = checkHarnessCall(toolUse.name, toolUse.input);
      if (!checked.ok) return done(base, 'read-only', toolUse.name, checked.error);
      // A delegation is the model's act, and counts as a call: a model cannot delegate without end.
      if (toolUse.name === DELEGATE_TOOL) {
        // A child gets only tools its parent has (delegation/delegation.ts).
        const tools = childTools(options.catalogue, delegateInputSchema.parse(checked.input));
        if (!tools.ok) return done(base, 'read-only', checked.summary, `Not delegated: ${tools.error}`);
        if (remainingCalls <= 0) {
          return done(base, 'read-only', checked.summary, callLimitText(config));
        }
        remainingCalls -= 1;
      }
      // Harness tools run in the workflow: no approval, no activity (report_step: no limit either).
      return {
        ...base,
        input: checked.input,
        reversibility: 'read-only',
        summary: checked.summary,
        status: 'ready',
      };
    }
    if (!offered.includes(toolUse.name)) {
      return done(base, 'read-only', toolUse.name, unknownToolText(toolUse.name, offered));
    }
    const prepared = preparedById.get(callId);
    if (prepared === undefined) {
      return done(
        base,
        'read-only',
        toolUse.name,
        `${toolUse.name} could not be checked before running, so it was not run.`,
      );
    }
    if (!prepared.ok) {
      return done(
        base,
        'read-only',
        toolUse.name,
        formatToolResult({ ok: false, content: prepared.error, candidates: prepared.candidates, facts: {} }),
      );
    }
    if (remainingCalls <= 0) {
      return done(base, prepared.tier, prepared.summary, callLimitText(config));
    }
    remainingCalls -= 1;
    const record = {
      ...base,
      input: prepared.input,
      reversibility: prepared.tier,
      ...(prepared.reason === undefined ? {} : { tierReason: prepared.reason }),
      summary: prepared.summary,
    };
    if (!requiresHumanApproval(prepared.tier, config.approvalPolicy)) {
      return { ...record, status: 'ready' };
    }
    return {
      ...record,
      status: 'awaiting-approval',
      approval: {
        requestedAt: new Date(nowMs).toISOString(),
        deadlineMs: nowMs + config.limits.approvalTimeoutMs,
      },
    };
  });
}

/** A call to a tool outside the goal's catalogue: a failed result with what to do instead. */
function unknownToolText(name: string, offered: readonly string[]): string {
  return formatToolResult({
    ok: false,
    content: `Unknown tool "${name}": it is not among this goal's tools.`,
    candidates: [
      `Call one of the available tools: ${offered.join(', ')}`,
      'Reach the goal with the available tools, or explain in your answer which tool is missing',
    ],
    facts: {},
  });
}

/**
 * Calls to prepare before they run: catalogue tools (harness tools are checked here). Who prepares
 * each, the workflow or the worker, is goal/tool-calls/prepared-calls.ts's decision.
 */
export function callsToPrepare(calls: readonly NamedCall[], catalogue: ToolCatalogue): NamedCall[] {
  return calls.filter((call) => catalogueEntry(catalogue, call.toolUse.name) !== undefined);
}

/** A call's identity: keel's id, and the model's tool_use id when it differs (goal/tool-calls/call-ids.ts). */
export function recordBase({
  callId,
  toolUse,
}: NamedCall): Pick<ToolCallRecord, 'callId' | 'toolUseId' | 'toolName' | 'input'> {
  return {
    callId,
    ...(toolUse.id === callId ? {} : { toolUseId: toolUse.id }),
    toolName: toolUse.name,
    input: toolUse.input,
  };
}

function done(
  base: Pick<ToolCallRecord, 'callId' | 'toolUseId' | 'toolName' | 'input'>,
  reversibility: ToolCallRecord['reversibility'],
  summary: string,
  content: string,
): ToolCallRecord {
  return { ...base, reversibility, summary, status: 'done', result: { content, isError: true } };
}

/** The names the model is offered: the goal's catalogue, plus the harness tools it is offered. */
export function offeredToolNames(catalogue: ToolCatalogue, config: GoalConfig): string[] {
  return [...catalogue.map((entry) => entry.name), ...offeredHarnessTools(harnessOffer(config))];
}

/** Which harness tools a goal is offered: report_step when it plans, delegate when it may delegate. */
export function harnessOffer(config: Pick<GoalConfig, 'planning' | 'delegation'>): HarnessOffer {
  return { planning: config.planning.enabled, delegate: mayDelegate(config.delegation) };
}

/**
 * Whether a turn may be carried to a new run now (continue-as-new while humans decide): only
 * while it is quiet — nothing running or about to run, and no decision that has arrived but not
 * yet moved its call. A decided call's lane runs it in the next microtasks; carried over in that
 * state it would be run once more by the new run.
 */
export function isQuietForContinueAsNew(turn: readonly ToolCallRecord[]): boolean {
  const waiting = turn.filter((call) => call.status === 'awaiting-approval');
  return (
    !turn.some((call) => call.status === 'running' || call.status === 'ready') &&
    waiting.length > 0 &&
    waiting.every((call) => call.approval?.decision === undefined)
  );
}

/** A call the goal's tool-call limit cut before it ran (wasCutByLimit reads it back). */
function callLimitText(config: GoalConfig): string {
  return `Not run: the goal's limit of ${config.limits.maxToolCalls} tool calls is reached.`;
}

export function wasCutByLimit(call: ToolCallRecord): boolean {
  return call.result?.content.startsWith("Not run: the goal's limit") ?? false;
}

/**
 * A denied or timed-out call comes back as a failed result with alternatives that need no
 * approval (principle 2), naming only tools the goal has (denial-alternatives.ts).
 */
export function denialText(
  decision: ApprovalDecision,
  call: Pick<ToolCallRecord, 'reversibility' | 'toolName'>,
  catalogue: ToolCatalogue,
  options: { held?: boolean } = {},
): string {
  // A held call did run, on a copy-on-write layer: what the denial stops is its changes.
  const held = options.held === true;
  const opening = held ? 'Not applied' : 'Not run';
  const withFate = (text: string): string =>
    held ? `${text}${/[.!?]$/.test(text) ? '' : '.'}${HELD_CHANGES_DISCARDED}` : text;
  if (decision.via === 'remembered-denial' || decision.via === 'rule')
    return rememberedDenialText(withFate(`${opening}: ${decision.reason ?? ''}`));
  const reason = decision.reason ? ` Reason: ${decision.reason}` : '';
  const content = withFate(
    decision.via === 'timeout'
      ? `${opening}: approval timed out. No human decided in time.`
      : `${opening}: denied by ${decision.approver}.${reason}`,
  );
  const candidates = denialAlternatives({
    catalogue,
    toolName: call.toolName,
    reversibility: call.reversibility,
  });
  return formatToolResult({ ok: false, content, candidates, facts: {} });
}

const HELD_CHANGES_DISCARDED =
  ' The command ran on a copy-on-write layer only. Its changes were discarded; nothing of it reached the workspace.';

/**
 * A call keel refused because a human denied its intent and asked not to be asked again, or a
 * forbid rule covers it: asking once more in other words will not reach a human, so the
 * alternatives say so.
 */
function rememberedDenialText(content: string): string {
  return formatToolResult({
    ok: false,
    content,
    candidates: [
      'Do not ask for this again, in these or other words: every call with this intent is refused the same way',
      'Leave the refused step undone: doing it with another tool, a script or other words is the same request, refused the same way; finish what does not need it',
      'Explain in your answer why this step would be needed, so the user can decide outside this goal',
    ],
    facts: {},
  });
}

export function unknownOutcomeText(summary: string, detail: string): string {
  return (
    `The outcome of this irreversible call (${summary}) is unknown: ${detail}. ` +
    'keel did not run it again and will not retry it. Inspect the workspace to see whether it took effect before deciding what to do; the user has been told.'
  );
}

export function toolResultBlocks(turn: readonly ToolCallRecord[]): ToolResultBlock[] {
  return turn.map((call) => {
    const text = call.result?.content ?? 'No result was recorded for this call.';
    const images = call.result?.images ?? [];
    const documents = call.result?.documents ?? [];
    // Counted in the context budget at their base64 length (context-budget.ts measures the JSON).
    return {
      type: 'tool_result',
      tool_use_id: call.toolUseId ?? call.callId,
      content:
        images.length === 0 && documents.length === 0
          ? text
          : [
              { type: 'text' as const, text },
              ...images.map((image) => ({
                type: 'image' as const,
                source: { type: 'base64' as const, media_type: image.mediaType, data: image.data },
              })),
              ...documents.map((document) => ({
                type: 'document' as const,
                source: { type: 'base64' as const, media_type: document.mediaType, data: document.data },
              })),
            ],
      ...(call.result?.isError ? { is_error: true } : {}),
    };
  });
}
