import type { ApprovalTier } from './approval-authority';

/**
 * A decision covers its own tier only. Whoever or whatever decided a call's start — the `auto`
 * policy, a human under `ask`, an approver of the mutating tier, an allow rule — only an approval
 * of the irreversible tier lets the call make the changes an unapproved call may not make
 * (workspace-change-policy.ts: a deletion, a replacement, git's configuration or hooks, a special
 * file). Any other start runs the call held to the mutating tier: what goes beyond it is held for
 * the irreversible tier's approvers, exactly as under `auto`. One rule for every policy and rule,
 * so no path can approve more than its approver may. Pure: the workflow asks it before each run.
 */

type Tier = 'read-only' | 'mutating' | 'irreversible';

/** The tier whose approvers decide a call of this reversibility (read-only calls never wait). */
export function decisionTier(reversibility: Tier): ApprovalTier {
  return reversibility === 'irreversible' ? 'irreversible' : 'mutating';
}

/**
 * Whether the call may run with its effects beyond the mutating tier applied (the executor's
 * `approved`): only once it was approved as an irreversible call. An approval of a mutating call,
 * by a human or a rule, starts it held to its tier.
 */
export function approvedBeyondMutating(call: {
  reversibility: Tier;
  approval?: { decision?: { approved: boolean } | undefined } | undefined;
}): boolean {
  return call.approval?.decision?.approved === true && decisionTier(call.reversibility) === 'irreversible';
}

/**
 * The tools keel itself holds to their tier: run_command on a copy-on-write layer (or asking
 * first where there is none), and the file tools path by path. Any other tool (MCP, the user's
 * own) gets only the goal's "may it start": keel sees none of its changes, so holds none.
 */
const TOOLS_HELD_TO_THEIR_TIER: ReadonlySet<string> = new Set(['run_command', 'write_file', 'edit_file']);

/**
 * What approving a call of this tier decides, in the words its approver reads before deciding:
 * true for every tool, so no approver believes they decided less than they did.
 */
export function decisionCoverage(tier: ApprovalTier, toolName: string): string {
  if (tier === 'irreversible') {
    return 'approving decides this irreversible call and everything it changes';
  }
  if (!TOOLS_HELD_TO_THEIR_TIER.has(toolName)) {
    return (
      `approving lets this call do all it does: ${toolName} is not a tool whose changes keel sees ` +
      'before they happen, so none of them waits for another approver'
    );
  }
  return (
    "approving decides this mutating call only: a deletion, a replacement, or a change to git's " +
    'configuration or hooks it makes is held, not applied, and waits for an approver of irreversible calls'
  );
}
