import type { ChildApproval } from './child-approval-schema';
import { inlineCode } from './markdown-code';

/**
 * The Web UI's details of a goal whose children wait for a human: each waiting call of its tree,
 * with the command that decides it from here (goal/views/child-approvals.ts brings them up).
 */
export function childApprovalsSection(
  workflowId: string,
  calls: ReadonlyArray<ChildApproval & { qualifiedId: string }> | undefined,
): string | undefined {
  if (calls === undefined || calls.length === 0) return undefined;
  return [
    `#### Waiting in child goals (${calls.length})`,
    ...calls.map(
      (call) =>
        `- ${inlineCode(call.qualifiedId)} (${call.reversibility}) ${call.summary.replace(/\s+/g, ' ')} — ${inlineCode(`keel approve ${workflowId} ${call.qualifiedId}`)}`,
    ),
  ].join('\n');
}
