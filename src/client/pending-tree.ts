import type { PendingEntry } from './pending-entries';
import { qualifiedCallId } from '../workflows/goal/views/child-approval-schema';

/**
 * A delegated child's waiting calls belong under its root goal (issue 47): `keel pending ROOT`
 * lists them with the ids the root decides them by (`delegate-1/call-2`, `sub-1-delegate-1/call-1`),
 * which `keel approve ROOT …` routes to the child (cli/child-call-route.ts). Child goals are
 * recognised by their ids, which their parent names: `<parent>-delegate-N` or `<parent>-sub-N`.
 */

const CHILD_PATH = /^(delegate|sub)-\d+(-(delegate|sub)-\d+)*$/;

/** Whether `workflowId` is a child goal (at any depth) of `rootWorkflowId`. */
export function isChildOf(workflowId: string, rootWorkflowId: string): boolean {
  return (
    workflowId.startsWith(`${rootWorkflowId}-`) &&
    CHILD_PATH.test(workflowId.slice(rootWorkflowId.length + 1))
  );
}

/** The outermost of `goals` that `workflowId` is a child of; undefined for a root. */
export function rootAmong(workflowId: string, goals: ReadonlySet<string>): string | undefined {
  let root: string | undefined;
  for (let at = workflowId.indexOf('-'); at > 0; at = workflowId.indexOf('-', at + 1)) {
    const prefix = workflowId.slice(0, at);
    if (goals.has(prefix) && isChildOf(workflowId, prefix)) {
      root = prefix;
      break; // the shortest prefix is the outermost goal
    }
  }
  return root;
}

/** Each child's entries moved under its root among the listed goals, with child-qualified call ids. */
export function underRoots(entries: readonly PendingEntry[], goals: ReadonlySet<string>): PendingEntry[] {
  return entries.map((entry) => {
    const root = rootAmong(entry.workflowId, goals);
    if (root === undefined) return entry;
    return {
      ...entry,
      workflowId: root,
      callId: qualifiedCallId(root, entry),
    };
  });
}
