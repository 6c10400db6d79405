import { callText, visibleText } from '../workflows/tools/call-text';
import type { PendingEntry } from '../client/pending-entries';
import { heldChangesCut, heldChangesLines } from '../workflows/tools/held-changes-text';
import { decisionCoverage } from '../workflows/approvals/decision-tier';
import { changeSetDigest } from '../workflows/approvals/change-set-digest';
import type { WorkspaceEffects } from '../workflows/tools/tool-outcome';
import { changesCommand, PENDING_PATHS_SHOWN } from './approval-changes-pages';

// Moved to the client room, shared with the inbox; re-exported for the CLI's own users.
export { pendingEntries, type PendingEntry } from '../client/pending-entries';

/**
 * How the terminal shows a call awaiting a human: its short label on one line, and under it the
 * whole call, indented, with nothing a terminal could hide (see callText). `keel pending`,
 * `status`, `watch` and `run --wait` print these; pure, so tests read exactly what they print.
 */

const CALL_INDENT = '    ';

/** A call's label on one line with nothing hidden: it is the model's text too. */
export function labelText(summary: string): string {
  return visibleText(summary, { oneLine: true });
}

/**
 * The commands that decide a pending call, on one line under it. `--rule` and `--forbid` are
 * shown because a human deciding a call is often about to be asked the same thing again.
 */
export function decisionHint(workflowId: string, callId: string, indent = CALL_INDENT): string {
  return `${indent}keel approve ${workflowId} ${callId} [--rule 'PATTERN']   |   keel deny ${workflowId} ${callId} [--forbid 'PATTERN']`;
}

/**
 * The calls keel refused without asking (a human denied their intent with doNotAskAgain), as a
 * clause for the approvals line; empty when none, so goals without any read as before.
 */
export function autoDeniedClause(counters: { approvalsAutoDenied?: number }): string {
  const count = counters.approvalsAutoDenied ?? 0; // absent in views from older workers
  return count > 0 ? `, ${count} refused without asking (denied before)` : '';
}

/**
 * The whole call, one indented line per line of it. Rendered here from the input rather than
 * taken from the view's `call`, so a goal whose worker predates that field is shown the same way.
 */
export function callLines(input: unknown, indent = CALL_INDENT): string[] {
  return callText(input)
    .split('\n')
    .map((line) => `${indent}${line}`);
}

/**
 * What a human reads under a pending approval's label: the whole call, then (when the call ran on
 * a copy-on-write layer and holds changes) exactly what approving would apply, and why it waits.
 */
export function approvalLines(
  approval: {
    input: unknown;
    /** Absent in views from workers before it: read as a tool keel holds to its tier. */
    toolName?: string;
    reason?: string;
    heldChanges?: WorkspaceEffects;
    reversibility?: string;
    callId?: string;
    workflowId?: string;
    /** Who may decide it; absent: anyone may. */
    approvers?: readonly string[];
  },
  indent = CALL_INDENT,
): string[] {
  const { reversibility, heldChanges } = approval;
  return [
    ...callLines(approval.input, indent),
    ...(heldChanges === undefined
      ? []
      : [
          `${indent}# ran on a copy-on-write layer; approving applies these changes, denying discards them:`,
          ...heldChangesLines(heldChanges, { shown: PENDING_PATHS_SHOWN }).map(
            (line) => `${indent}# ${line}`,
          ),
          // The first paths of each kind only: a long list says where to read all of it.
          ...(heldChangesCut(heldChanges, PENDING_PATHS_SHOWN)
            ? [
                `${indent}# every path, a page at a time: ${changesCommand(approval.workflowId ?? '<goal>', approval.callId ?? '<callId>')} (--json: all at once)`,
              ]
            : []),
          `${indent}# these changes: ${changeSetDigest(heldChanges)} (keel approve … --changes it: any other set is refused)`,
        ]),
    ...(approval.reason === undefined
      ? []
      : [`${indent}# why it waits: ${visibleText(approval.reason, { oneLine: true })}`]),
    ...(approval.approvers === undefined
      ? []
      : [`${indent}# who may decide: ${visibleText(approval.approvers.join(', '), { oneLine: true })}`]),
    // What a mutating call's decision covers, so its approver never believes they decided more:
    // an irreversible call's approval decides everything it does, as it always did.
    ...(reversibility === 'mutating'
      ? [`${indent}# ${decisionCoverage(reversibility, approval.toolName ?? 'run_command')}`]
      : []),
  ];
}

/** `keel pending`: a line per entry as before, and under each call the whole of it. */
export function pendingLines(entries: readonly PendingEntry[]): string[] {
  if (entries.length === 0) return ['no tool calls or outputs are awaiting a human'];
  return entries.flatMap(
    ({
      workflowId,
      callId,
      toolName,
      reversibility,
      summary,
      deadline,
      input,
      reason,
      heldChanges,
      approvers,
      hostLoss,
    }) => [
      ...(callId === 'review'
        ? [`${workflowId}  review  ${summary}  (keel review ${workflowId} --accept | --reject)`]
        : [
            `${workflowId}  ${callId}  ${reversibility}  ${labelText(summary)}  (until ${deadline})`,
            ...approvalLines({
              input,
              ...(toolName === undefined ? {} : { toolName }),
              reversibility,
              workflowId,
              callId,
              ...(reason === undefined ? {} : { reason }),
              ...(heldChanges === undefined ? {} : { heldChanges }),
              ...(approvers === undefined ? {} : { approvers }),
            }),
          ]),
      // A parked goal makes no calls, so its host's loss would not show anywhere else.
      ...(hostLoss ?? []).map((line) => `${CALL_INDENT}! ${line.trimStart()}`),
    ],
  );
}
