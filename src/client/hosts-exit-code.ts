import type { HostLiveness } from './host-liveness';

/** `keel hosts`' exit codes (docs/several-machines.md, Seeing a host's loss). */
export const HostsExitCode = {
  Fine: 0,
  /** No keel worker serves the task queue, and no running goal needs one. */
  NoHosts: 1,
  /** A host that a running goal is bound to is missing (or has no worker at all). */
  NeededHostMissing: 3,
} as const;

export function hostsExitCode(hosts: readonly HostLiveness[]): number {
  if (hosts.some((host) => (host.runningGoals ?? 0) > 0 && host.state !== 'live'))
    return HostsExitCode.NeededHostMissing;
  return hosts.some((host) => host.state === 'live') ? HostsExitCode.Fine : HostsExitCode.NoHosts;
}
