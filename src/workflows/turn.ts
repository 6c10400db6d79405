import { requiresHumanApproval } from './approval-policy';
import type { GoalConfig } from './goal-input';
import type { ApprovalDecision, ToolCallRecord } from './goal-state';
import { classifyToolCall, formatToolResult, isHarnessTool, TOOL_NAMES } from './tools/tool-registry';
import { REPORT_STEP_TOOL } from './tools/report-step-spec';
import type { ToolResultBlock, ToolUseBlock } from './transcript';

/**
 * One model turn's tool calls as data. Each call moves awaiting-approval → ready → running → done;
 * because the turn is plain state, a goal can continue-as-new while calls wait for a human and
 * pick up exactly where it stopped.
 */
export function planTurn(options: {
  toolUses: ToolUseBlock[];
  config: GoalConfig;
  toolCallsSoFar: number;
  nowMs: number;
}): ToolCallRecord[] {
  const { toolUses, config, nowMs } = options;
  let remainingCalls = config.limits.maxToolCalls - options.toolCallsSoFar;
  const offered = new Set(offeredTools(config));
  return toolUses.map((toolUse): ToolCallRecord => {
    const base = { callId: toolUse.id, toolName: toolUse.name, input: toolUse.input };
    if (!offered.has(toolUse.name)) {
      return done(
        base,
        'read-only',
        toolUse.name,
        `Unknown tool "${toolUse.name}". Available: ${[...offered].join(', ')}.`,
      );
    }
    const classified = classifyToolCall(toolUse.name, toolUse.input, { network: config.sandbox.network });
    if (!classified.ok) return done(base, 'read-only', toolUse.name, classified.error);
    if (isHarnessTool(toolUse.name)) {
      // Harness tools change only the goal's own state: no limit, no approval, no activity.
      return {
        ...base,
        input: classified.input,
        reversibility: 'read-only',
        summary: classified.summary,
        status: 'ready',
      };
    }
    if (remainingCalls <= 0) {
      return done(
        base,
        classified.reversibility,
        classified.summary,
        `Not run: the goal's limit of ${config.limits.maxToolCalls} tool calls is reached.`,
      );
    }
    remainingCalls -= 1;
    const record = {
      ...base,
      input: classified.input,
      reversibility: classified.reversibility,
      summary: classified.summary,
    };
    if (!requiresHumanApproval(classified.reversibility, config.approvalPolicy)) {
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

function done(
  base: Pick<ToolCallRecord, 'callId' | 'toolName' | 'input'>,
  reversibility: ToolCallRecord['reversibility'],
  summary: string,
  content: string,
): ToolCallRecord {
  return { ...base, reversibility, summary, status: 'done', result: { content, isError: true } };
}

/** The tools the model is offered: the goal's choice (or all), plus report_step when it plans. */
export function offeredTools(config: GoalConfig): string[] {
  const tools = config.tools ?? [...TOOL_NAMES];
  return config.planning.enabled ? [...tools, REPORT_STEP_TOOL] : tools;
}

export function wasCutByLimit(call: ToolCallRecord): boolean {
  return call.result?.content.startsWith("Not run: the goal's limit") ?? false;
}

export type DecisionCheck = { ok: true; call: ToolCallRecord } | { ok: false; message: string };

/** Whether a decision for this call id can be accepted now (used by the Update validator too). */
export function checkDecision(turn: readonly ToolCallRecord[] | undefined, callId: string): DecisionCheck {
  const call = turn?.find((candidate) => candidate.callId === callId);
  if (!call) return { ok: false, message: `no pending approval with call id ${callId}` };
  if (call.status !== 'awaiting-approval' || call.approval?.decision) {
    return { ok: false, message: `call ${callId} was already decided` };
  }
  return { ok: true, call };
}

/**
 * A denied or timed-out call comes back as a failed result with alternatives that need no
 * approval (principle 2): the harness knows its own tools, and names nothing ecosystem-specific.
 */
export function denialText(decision: ApprovalDecision, call: Pick<ToolCallRecord, 'reversibility'>): string {
  const reason = decision.reason ? ` Reason: ${decision.reason}` : '';
  const content =
    decision.via === 'timeout'
      ? 'Not run: approval timed out. No human decided in time.'
      : `Not run: denied by ${decision.approver}.${reason}`;
  const candidates = [
    'Inspect first with read-only calls (list_dir, read_file, search) to confirm whether this step is needed at all',
    call.reversibility === 'irreversible'
      ? 'Reach the result with write_file or edit_file inside the workspace, which needs no irreversible step'
      : 'Describe the exact change (file and content) in your answer so the user can apply it',
    'Explain in your answer what this step would do and why, so a human can approve it next time',
  ];
  return formatToolResult({ ok: false, content, candidates, facts: {} });
}

export function unknownOutcomeText(summary: string, detail: string): string {
  return (
    `The outcome of this irreversible call (${summary}) is unknown: ${detail}. ` +
    'keel did not run it again and will not retry it. Inspect the workspace to see whether it took effect before deciding what to do; the user has been told.'
  );
}

export function toolResultBlocks(turn: readonly ToolCallRecord[]): ToolResultBlock[] {
  return turn.map((call) => ({
    type: 'tool_result',
    tool_use_id: call.callId,
    content: call.result?.content ?? 'No result was recorded for this call.',
    ...(call.result?.isError ? { is_error: true } : {}),
  }));
}
