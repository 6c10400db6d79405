import { sha256 } from '@noble/hashes/sha2.js';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { WorkspaceEffects } from '../tools/tool-outcome';

/**
 * An approver approves the exact change set they were shown, not whatever a call holds when the
 * decision lands. The set is named by a digest: sha256 over its canonical text (every kind's
 * paths sorted, and what the list could not name — the counts of paths left off and of entries
 * inside a directory), so the same set gives the same digest wherever it is computed: the CLI over
 * what it printed, the workflow over what it holds. Pure and deterministic (@noble/hashes is
 * audited, pure JavaScript: workflow code cannot use Node's crypto), so a replay judges alike.
 */

export const CHANGES_DIGEST_PREFIX = 'sha256:';

/** The canonical text of a change set: a JSON array, so no path can pass for another field. */
export function changeSetText(changes: WorkspaceEffects): string {
  const sorted = (paths: readonly string[]) => [...paths].sort();
  const collapsed = Object.entries(changes.collapsed ?? {}).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return JSON.stringify([
    'keel-change-set-v1',
    sorted(changes.deleted),
    sorted(changes.modified),
    sorted(changes.created),
    [changes.omitted?.deleted ?? 0, changes.omitted?.modified ?? 0, changes.omitted?.created ?? 0],
    collapsed,
  ]);
}

/** `sha256:<hex>` of the change set's canonical text. */
export function changeSetDigest(changes: WorkspaceEffects): string {
  return `${CHANGES_DIGEST_PREFIX}${bytesToHex(sha256(new TextEncoder().encode(changeSetText(changes))))}`;
}

/**
 * How many changes the list names only as a count ("and 101 more"): nobody was shown them. A
 * layer lists every path it changed (layer-capture.ts), so only a list captured by an older
 * worker, which kept 200 paths of each kind, counts any.
 */
export function unlistedChanges(changes: WorkspaceEffects): number {
  const omitted = changes.omitted;
  return (omitted?.deleted ?? 0) + (omitted?.modified ?? 0) + (omitted?.created ?? 0);
}

export const ChangeSetRefusal = {
  /** The approval named a change set other than the one the call holds. */
  ChangesDiffer: 'changes-differ',
  /** The call holds changes its list does not name (an older worker's list): nobody saw them. */
  UnlistedChanges: 'unlisted-changes',
} as const;
export type ChangeSetRefusal = (typeof ChangeSetRefusal)[keyof typeof ChangeSetRefusal];

export type ChangeSetCheck = { ok: true } | { ok: false; reason: ChangeSetRefusal; message: string };

/**
 * Whether an approval may apply the changes a call holds. A denial applies nothing, so it always
 * may. An approval that names a digest must name the held set's; one that names none (a client
 * from before digests) approves the held set, which is the only set that call ever shows. Either
 * way, a set whose list leaves paths unnamed is never applied: its approver could not see them.
 * A fully listed set is approved at any size: `keel pending` pages it, and the digest covers all.
 */
export function checkChangeSet(options: {
  approved: boolean;
  held: WorkspaceEffects | undefined;
  digest: string | undefined;
}): ChangeSetCheck {
  const { approved, held, digest } = options;
  if (!approved) return { ok: true };
  if (held === undefined) {
    if (digest === undefined) return { ok: true };
    return {
      ok: false,
      reason: ChangeSetRefusal.ChangesDiffer,
      message: `the approval names change set ${digest}, but this call holds no changes now: look again (keel pending) and decide what it holds`,
    };
  }
  const actual = changeSetDigest(held);
  if (digest !== undefined && digest !== actual) {
    return {
      ok: false,
      reason: ChangeSetRefusal.ChangesDiffer,
      message: `the approval names change set ${digest}, but this call holds ${actual}: look again (keel pending) and approve what it holds`,
    };
  }
  const unlisted = unlistedChanges(held);
  if (unlisted > 0) {
    return {
      ok: false,
      reason: ChangeSetRefusal.UnlistedChanges,
      message: `this call holds ${unlisted} changes its list does not name, and nobody approves what they were not shown: deny it, and let the model make the change in smaller steps`,
    };
  }
  return { ok: true };
}

/**
 * What the ledger keeps of a held change set: its digest and how many paths of each kind, not the
 * list (up to 512 KiB), which the ledger would carry for 500 events across continue-as-new. The
 * list itself is in the pending approval (`keel pending --changes`) while it waits.
 */
export function changeSetSummary(changes: WorkspaceEffects): {
  changesDigest: string;
  changedPaths: { deleted: number; modified: number; created: number };
} {
  const count = (kind: 'deleted' | 'modified' | 'created') =>
    changes[kind].length + (changes.omitted?.[kind] ?? 0);
  return {
    changesDigest: changeSetDigest(changes),
    changedPaths: { deleted: count('deleted'), modified: count('modified'), created: count('created') },
  };
}
