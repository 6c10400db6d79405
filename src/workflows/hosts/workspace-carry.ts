/**
 * Carrying a workspace when a goal moves while its old host is alive (activities/hosts/
 * carry-workspace.ts). The pack passes through the goal's history twice (read from the old host,
 * written to the new), so it is bounded well below Temporal's history limit, and chunked below
 * its payload limit.
 */

/** The largest compressed pack a move carries (4 MiB; in history twice, 8 MiB). */
export const CARRY_LIMIT_BYTES = 4 * 1024 * 1024;
/** One chunk of the pack per activity result and input (256 KiB, about 342 KiB as base64). */
export const CARRY_CHUNK_BYTES = 256 * 1024;

export interface WorkspacePack {
  packId: string;
  /** The compressed pack's size. */
  bytes: number;
  chunks: number;
  /** sha256 of the pack, checked by the new host before it unpacks anything. */
  digest: string;
  files: number;
  /**
   * The workspace's turn checkpoints (issue 48), carried in the same pack so forks and rewinds
   * after the move find them on the new host; left behind (`carried: false`) when the pack
   * would be over the limit with them. Absent: the workspace had none.
   */
  checkpoints?: { carried: boolean; files: number };
}
