import { networkInterfaces } from 'node:os';
import { ApplicationFailure } from '@temporalio/common';

/** The failure type when a goal grants network but this worker cannot isolate it (never the host's network instead). */
export const NETWORK_ISOLATION_UNAVAILABLE = 'NetworkIsolationUnavailable';

/** How the launcher's stderr begins when it could not set the network up: the command never ran. */
export const NETWORK_SETUP_FAILED = 'keel: network isolation failed';

/** The launcher's exit status when setup failed (as bwrap's own setup errors, 125). */
const SETUP_FAILED_EXIT = 125;

/** Whether a command granted network can get a network of its own here (slirp4netns, see below). */
export type NetworkIsolation =
  | {
      readonly available: true;
      readonly unshare: string;
      readonly slirp4netns: string;
      /** iproute2's `ip`: marks the host's own addresses unreachable inside the namespace. */
      readonly ip: string;
    }
  | { readonly available: false; readonly reason: string };

/**
 * Gives a network-granted command a network namespace of its own whose only way out is
 * slirp4netns, a user-mode NAT that connects to the world from the host's side:
 * 1. `unshare --net` makes the namespace; in it, still privileged there, each of the host's own
 *    addresses gets an `unreachable` route (slirp would otherwise connect to them from the host,
 *    reaching a service bound to 0.0.0.0), then the shell stops itself (SIGSTOP);
 * 2. once it is stopped, and so surely inside the namespace, slirp4netns attaches to it with
 *    --disable-host-loopback: the gateway 10.0.2.2 does not lead to the host's 127.0.0.1, where
 *    Temporal's frontend, the Web UI, a codec server or a model endpoint listen without auth;
 * 3. once the namespace has its default route the shell goes on and execs the command (bwrap
 *    --share-net then shares this namespace, not the host's); slirp4netns goes when it ends.
 * The namespace's loopback is its own: nothing of the host listens there. Fixed text: the tools,
 * the addresses and the command are "$1" … "$4" and "$@", never part of the script.
 *
 * Both waits end when the process they wait on is gone or a zombie (Z): sh reaps no child while
 * it runs only builtins, so a namespace shell that exited (unshare refused, a route not set) stays
 * Z, never T, and `kill -0` still finds a zombie slirp4netns; without that check the loop would
 * spin at full CPU until the call's timeout. `route replace`, not `add`: an address given twice
 * (two interfaces may share one) must not fail setup with "File exists".
 */
export const NETWORK_LAUNCHER_SCRIPT = [
  'unshare=$1; slirp=$2; ip=$3; blocked=$4; shift 4',
  `"$unshare" --net -- /bin/sh -c 'ip=$1; for address in $2; do "$ip" route replace unreachable "$address" || exit 125; done; shift 2; kill -STOP $$; exec "$@"' keel-network "$ip" "$blocked" "$@" &`,
  'child=$!',
  'state=',
  `while [ "$state" != T ]; do read -r _ _ state _ 2>/dev/null </proc/$child/stat && [ "$state" != Z ] || { echo "${NETWORK_SETUP_FAILED}: no network namespace could be made for the command" >&2; exit 125; }; done`,
  '"$slirp" --configure --disable-host-loopback --enable-sandbox --mtu 65520 $child tap0 </dev/null >/dev/null 2>&1 &',
  'network=$!',
  `until grep -q '^tap0\t00000000' /proc/$child/net/route 2>/dev/null; do read -r _ _ state _ 2>/dev/null </proc/$network/stat && [ "$state" != Z ] || { echo "${NETWORK_SETUP_FAILED}: slirp4netns could not give the command its network" >&2; kill -9 $child; exit 125; }; done`,
  'kill -CONT $child',
  'wait $child',
  'code=$?',
  'kill $network 2>/dev/null',
  'exit $code',
].join('\n');

/** argv that runs `command` (bwrap …, sharing the network) in a namespace of its own, as above. */
export function isolatedNetworkLauncher(options: {
  isolation: NetworkIsolation;
  blockedAddresses: readonly string[];
}): string[] {
  const { isolation } = options;
  if (!isolation.available) throw networkIsolationUnavailable(isolation.reason);
  return [
    '/bin/sh',
    '-c',
    NETWORK_LAUNCHER_SCRIPT,
    'keel-network',
    isolation.unshare,
    isolation.slirp4netns,
    isolation.ip,
    options.blockedAddresses.join(' '),
  ];
}

/** The host's own IPv4 addresses besides loopback (slirp4netns offers the namespace no IPv6). */
export function hostAddresses(): string[] {
  return Object.values(networkInterfaces())
    .flatMap((entries) => entries ?? [])
    .filter((entry) => entry.family === 'IPv4' && !entry.internal)
    .map((entry) => entry.address)
    .filter((address, index, all) => all.indexOf(address) === index); // one route each
}

/**
 * The typed failure for a launcher that could not set the network up (see the script): the
 * command never started, so the call is "not run", as when isolation is unavailable outright.
 * Undefined for any other result, including the command's own exit status 125 without the line.
 */
export function networkSetupFailure(result: {
  readonly exitCode: number | undefined;
  readonly stderr: { toString(): string };
}): ApplicationFailure | undefined {
  if (result.exitCode !== SETUP_FAILED_EXIT) return undefined;
  const line = result.stderr
    .toString()
    .split('\n')
    .find((text) => text.startsWith(NETWORK_SETUP_FAILED));
  if (line === undefined) return undefined;
  const detail = result.stderr.toString().trim().split('\n').slice(-3).join('; ');
  return networkIsolationUnavailable(`the network could not be set up: ${detail}`);
}

/**
 * A goal granted network, but this worker cannot give a command a network of its own: the call
 * fails rather than run with the host's network, where Temporal's frontend listens without auth.
 */
export function networkIsolationUnavailable(reason: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    `run_command: this goal allows network, but this worker cannot isolate a command's network (${reason}); install slirp4netns (bash scripts/ensure-network-isolation.sh), never the host's own network instead`,
    NETWORK_ISOLATION_UNAVAILABLE,
  );
}
