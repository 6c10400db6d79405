import type { WorkflowHandle } from '@temporalio/client';
import type { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approveSignal, goalStatusQuery } from '../../src/workflows/goal/messages';

type GoalHandle = WorkflowHandle<typeof goalWorkflow>;

export interface Approver {
  /** Calls whose approve signal the server accepted. */
  readonly signaled: ReadonlySet<string>;
  stop(): Promise<void>;
}

/**
 * Approves every pending call by signal, as a person with `keel approve` would, through worker
 * kills (the status query fails while no worker runs) and server restarts (so does the signal).
 * Each call is signaled once the server accepts it: one that is never decided was lost.
 */
export function startApprover(handle: GoalHandle): Approver {
  const signaled = new Set<string>();
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      await approvePending(handle, signaled);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  })();
  return {
    signaled,
    async stop() {
      stopped = true;
      await loop;
    },
  };
}

/**
 * One look at a goal: signals approval of each pending call not signaled yet, and adds it to
 * `signaled` once the server accepted the signal. A failed query or signal (no worker, no server)
 * is left for the next look.
 */
export async function approvePending(handle: GoalHandle, signaled: Set<string>): Promise<void> {
  try {
    const view = await handle.query(goalStatusQuery);
    for (const pending of view.pendingApprovals) {
      if (signaled.has(pending.callId)) continue;
      await handle.signal(approveSignal, { callId: pending.callId, approver: 'chaos' });
      signaled.add(pending.callId);
    }
  } catch {
    // no worker to answer the query, or no server: try again shortly
  }
}
