import { hostAddresses, isolatedNetworkLauncher } from './network-isolation';
import { prlimitArguments } from './resource-limits';
import type { SandboxStatus } from './sandbox-status';

/**
 * Closes every descriptor but stdin, stdout and stderr, then runs "$@". The worker may have
 * inherited open descriptors (a pipe from whoever started it) that Node passes on to every child
 * and bwrap passes on to the command; a command must not write into them. bash, not sh: dash
 * cannot close a descriptor above 9. Fixed text; the command is "$@".
 */
export const CLOSE_INHERITED_DESCRIPTORS_SCRIPT =
  'for descriptor in /proc/self/fd/*; do descriptor=${descriptor##*/}; if [ "$descriptor" -gt 2 ]; then exec {descriptor}>&-; fi; done 2>/dev/null; exec "$@"';

/**
 * What runs before bwrap: with network, a namespace of its own (network-isolation.ts; the call
 * fails, typed, where none can be made), the inherited descriptors closed, and the resource
 * limits (resource-limits.ts). A call without network pays for neither namespace nor slirp4netns:
 * bwrap's own empty network is it.
 */
export function confinementPrefix(
  status: Extract<SandboxStatus, { mode: 'bubblewrap' }>,
  network: boolean,
): string[] {
  return [
    ...(network
      ? isolatedNetworkLauncher({ isolation: status.network, blockedAddresses: hostAddresses() })
      : []),
    '/bin/bash',
    '-c',
    CLOSE_INHERITED_DESCRIPTORS_SCRIPT,
    'keel-descriptors',
    ...(status.prlimit === undefined ? [] : prlimitArguments(status.prlimit, status.limits)),
  ];
}
