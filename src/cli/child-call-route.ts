import { CliError } from './cli-error';
import { isChildOf } from '../client/pending-tree';

/**
 * `keel approve ROOT delegate-1/call-3`: a call a delegated child waits on, as the root's status
 * lists it, decided on the child that holds it (which judges it as any decision). The child's id
 * may be given whole or past the root's (`delegate-1`, `delegate-1-delegate-2` for a grandchild;
 * `sub-1` for a sub-goal of the self-assessment's split, started the same way).
 */
export function routeDecision(
  rootWorkflowId: string,
  callId: string | undefined,
): { workflowId: string; callId: string | undefined } {
  if (callId === undefined || !callId.includes('/')) return { workflowId: rootWorkflowId, callId };
  const at = callId.lastIndexOf('/');
  const child = callId.slice(0, at);
  const inner = callId.slice(at + 1);
  const workflowId = child.startsWith(`${rootWorkflowId}-`) ? child : `${rootWorkflowId}-${child}`;
  if (inner === '' || !isChildOf(workflowId, rootWorkflowId)) {
    throw new CliError(
      `${callId} names no call of a child goal of ${rootWorkflowId} (as delegate-N/call-M): keel status ${rootWorkflowId} lists the calls its children wait on`,
    );
  }
  return { workflowId, callId: inner };
}
