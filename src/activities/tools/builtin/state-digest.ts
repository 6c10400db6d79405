import { createHash } from 'node:crypto';

/**
 * The digest of one file's content after a call changed it, with its path: the `stateDigest` of
 * the call's effects (see tool-outcome.ts). 16 hex digits keep workflow state small; a collision
 * would only make the guards miss one new state.
 */
export function fileStateDigest(relative: string, content: Buffer): string {
  return createHash('sha256').update(relative).update('\0').update(content).digest('hex').slice(0, 16);
}
