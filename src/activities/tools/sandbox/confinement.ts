import { hostAddresses, isolatedNetworkLauncher } from './network-isolation';
import { ulimitArguments } from './resource-limits';
import type { SandboxStatus } from './sandbox-status';

/**
 * Moves itself into the call's pids cgroup ("$5", when there is one: process-cgroup.ts), sets
 * the resource limits ("$1" … "$4", resource-limits.ts), closes every descriptor but stdin,
 * stdout and stderr, then runs "$@". The worker may have inherited open descriptors (a pipe from
 * whoever started it) that Node passes on to every child and bwrap to the command; a command must
 * not write into them. One bash for both, so a call pays for one more exec, not two; bash, not
 * sh: dash can neither close a descriptor above 9 nor set several limits at once. Fixed text.
 * The move writes 0 (the writer) to the v1 `tasks` file, not its pid to `cgroup.procs`: moving a
 * whole thread group takes the kernel's global cgroup_threadgroup_rwsem for writing, which waits
 * out an RCU grace period (about 8 ms a call measured here), while moving the current thread alone
 * skips that lock (kernel/cgroup/cgroup.c, cgroup_procs_write_start); bash has one thread, so
 * moving it moves the process (about 0.3 ms).
 * No redirection on the loop: bash would keep stderr's copy in a descriptor above 2 for the
 * loop's length, the loop would close it, and the command would lose its stderr.
 */
export const CONFINE_SCRIPT =
  'if [ -n "$5" ]; then echo 0 > "$5/tasks" || exit 125; fi; ulimit -d "$1" -f "$2" -u "$3" -n "$4" || exit 125; shift 5; for descriptor in /proc/self/fd/*; do descriptor=${descriptor##*/}; if [ "$descriptor" -gt 2 ]; then exec {descriptor}>&-; fi; done; exec "$@"';

/**
 * What runs before bwrap: with network, a namespace of its own (network-isolation.ts; the call
 * fails, typed, where none can be made), then the resource limits and no inherited descriptors. A call without network pays for neither namespace nor slirp4netns:
 * bwrap's own empty network is it.
 */
export function confinementPrefix(
  status: Extract<SandboxStatus, { mode: 'bubblewrap' }>,
  network: boolean,
  /** The call's pids cgroup (process-cgroup.ts), if this worker can make one. */
  cgroup?: string,
): string[] {
  return [
    ...(network
      ? isolatedNetworkLauncher({ isolation: status.network, blockedAddresses: hostAddresses() })
      : []),
    '/bin/bash',
    '-c',
    CONFINE_SCRIPT,
    'keel-confine',
    ...ulimitArguments(status.limits),
    cgroup ?? '',
  ];
}
