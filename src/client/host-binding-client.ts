import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure, WorkflowFailedError } from '@temporalio/client';
import { FailureType } from '../workflows/common/failure-types';
import { goalStatusQuery, rebindHostUpdate, type RebindReceipt } from '../workflows/goal/messages';
import type { GoalHandle } from './goal-client';

export type BindingWait =
  | { kind: 'bound'; host: string; via: string }
  /** The goal ended before it bound (its workspace exists on no host, the host is unknown, …). */
  | { kind: 'failed'; message: string }
  /** The goal has already ended, after it ran (a quick goal can end before the first look). */
  | { kind: 'ended' }
  /** Nothing answered in time: no worker has taken the goal yet. */
  | { kind: 'pending' };

/**
 * Waits until a new goal is bound to its workspace host (see docs/several-machines.md), so
 * `keel run` can say where it runs, or print why it cannot run anywhere, before it returns.
 */
export async function awaitHostBinding(
  handle: GoalHandle,
  options: { timeoutMs: number; pollMs?: number },
): Promise<BindingWait> {
  const deadline = Date.now() + options.timeoutMs;
  const pollMs = options.pollMs ?? 200;
  for (;;) {
    const description = await handle.describe().catch(() => undefined);
    const execution = description?.status.name;
    if (execution !== undefined && execution !== 'RUNNING') return closedBinding(handle);
    if (execution === 'RUNNING') {
      // A query needs a worker; one that cannot answer yet is asked again at the next poll.
      const view = await handle.query(goalStatusQuery).catch(() => undefined);
      if (view?.host !== undefined) return { kind: 'bound', host: view.host.id, via: view.host.via };
      // A goal of a worker without host affinity (an older keel) has no host to wait for.
      if (view !== undefined && view.counters.modelTurns > 0) return { kind: 'ended' };
    }
    if (Date.now() >= deadline) return { kind: 'pending' };
    await sleep(pollMs);
  }
}

/** Failures of a goal that could not start anywhere; any other ending came after it ran. */
const START_FAILURES: readonly string[] = [
  FailureType.WorkspaceNotFound,
  FailureType.UnknownHost,
  FailureType.WorkspaceUnpreparable,
  FailureType.WorkspaceNested,
  FailureType.InvalidGoalInput,
];

async function closedBinding(handle: GoalHandle): Promise<BindingWait> {
  const view = await handle.query(goalStatusQuery).catch(() => undefined);
  if (view?.host !== undefined) return { kind: 'bound', host: view.host.id, via: view.host.via };
  try {
    await handle.result();
    return { kind: 'ended' };
  } catch (error) {
    const cause = error instanceof WorkflowFailedError ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && START_FAILURES.includes(cause.type ?? ''))
      return { kind: 'failed', message: cause.message };
    return { kind: 'ended' };
  }
}

/**
 * Moves a goal whose host is unavailable to another host (the rebindHost Update); with `carry`,
 * a goal whose host is alive, with its workspace.
 */
export function rebindHost(
  handle: GoalHandle,
  options: { host: string; by: string; carry?: boolean },
): Promise<RebindReceipt> {
  return handle.executeUpdate(rebindHostUpdate, {
    args: [{ host: options.host, by: options.by, ...(options.carry === true ? { carry: true } : {}) }],
  });
}
