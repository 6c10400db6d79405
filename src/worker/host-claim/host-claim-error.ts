/**
 * The worker may not serve its host id: another live machine holds it (and this one is no replica
 * of its disk), or the workspace root's marker names another host. One line naming the holder and
 * the fixes; `keel worker` prints it and exits non-zero.
 */
export class HostClaimError extends Error {
  override readonly name = 'HostClaimError';
}
