import { setTimeout as sleep } from 'node:timers/promises';
import { decideApproval, type GoalHandle } from '../../src/client/goal-client';
import { goalStatusQuery } from '../../src/workflows/goal/messages';

/**
 * A human who denies every approval request of one goal, the way `keel deny` does (a `deny`
 * signal naming the call), and counts how often they were asked. The suite plays them for the
 * scenario that keeps asking for what was denied (issue 22: "the human had to deny 50 times").
 */
export interface DenyingHuman {
  /** Stops watching; resolves to how many requests were denied. */
  stop(): Promise<number>;
}

export const DENYING_APPROVER = 'discipline-human';

export function startDenyingHuman(
  handle: GoalHandle,
  options: { reason: string; pollMs?: number },
): DenyingHuman {
  const seen = new Set<string>();
  let denials = 0;
  let watching = true;
  const watch = (async () => {
    while (watching) {
      const view = await handle.query(goalStatusQuery).catch(() => undefined);
      for (const pending of view?.pendingApprovals ?? []) {
        if (seen.has(pending.callId)) continue;
        seen.add(pending.callId);
        const sent = await decideApproval(handle, {
          callId: pending.callId,
          approved: false,
          approver: DENYING_APPROVER,
          reason: options.reason,
          via: 'signal',
        }).then(
          () => true,
          () => false, // the goal ended meanwhile: nobody was asked
        );
        if (sent) denials += 1;
      }
      if (view !== undefined && view.status !== 'running') return;
      await sleep(options.pollMs ?? 100);
    }
  })();
  return {
    async stop() {
      watching = false;
      await watch;
      return denials;
    },
  };
}
