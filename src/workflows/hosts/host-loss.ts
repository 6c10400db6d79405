import { z } from 'zod';

/**
 * A goal's view of its host's liveness, as keel workers' host watchers signal it (hostLiveness):
 * recorded and shown so a goal parked on an approval, which makes no calls and so never notices,
 * still shows that its host is gone. Pure: the workflow applies what this decides.
 */

export const hostMissingSchema = z.lazy(() =>
  z.object({
    host: z.string(),
    /** The host's last beat (ISO 8601). */
    since: z.string(),
    /** The watcher that saw it. */
    by: z.string(),
  }),
);
export type HostMissing = z.infer<typeof hostMissingSchema>;

export type HostLivenessChange =
  | { kind: 'missing'; missing: HostMissing }
  | { kind: 'back'; was: HostMissing; since: string; by: string }
  /** A repeat (several watchers, or the same one again), news of another host, or back when never missing. */
  | { kind: 'none' };

export function hostLivenessChange(options: {
  /** What the goal recorded so far. */
  current: HostMissing | undefined;
  /** The host the goal is bound to now. */
  boundHost: string | undefined;
  signal: { host: string; state: 'missing' | 'live'; since: string; by: string };
}): HostLivenessChange {
  const { current, boundHost, signal } = options;
  if (signal.host !== boundHost) return { kind: 'none' }; // a host the goal left (rebound), or never had
  if (signal.state === 'missing') {
    if (current?.host === signal.host) return { kind: 'none' };
    return { kind: 'missing', missing: { host: signal.host, since: signal.since, by: signal.by } };
  }
  if (current?.host !== signal.host) return { kind: 'none' };
  return { kind: 'back', was: current, since: signal.since, by: signal.by };
}

/** The recorded loss, when it is about the host the goal is bound to now. */
export function currentHostLoss(
  missing: HostMissing | undefined,
  boundHost: string | undefined,
): HostMissing | undefined {
  return missing !== undefined && missing.host === boundHost ? missing : undefined;
}

/**
 * The line a human reads (keel status, keel pending, the Web UI's details): which host, since
 * when, and what that means for the goal now; the actions follow it.
 */
export function hostLossText(options: { host: string; since: string; pendingApprovals: number }): string {
  const waiting =
    options.pendingApprovals === 0
      ? 'its next workspace call will wait for it'
      : options.pendingApprovals === 1
        ? 'the call awaiting approval, once approved, will wait for it'
        : 'the calls awaiting approval, once approved, will wait for it';
  return `host ${options.host} missing since ${options.since} (its workers stopped beating): ${waiting}; you can:`;
}
