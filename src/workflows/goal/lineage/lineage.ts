/**
 * Where a goal came from when it is a fork or a rewind of another (issue 48): the goal and turn
 * it continues from, what a person told it to do differently, and the irreversible calls the
 * original made after that turn, which the fork does not undo and never repeats on its own.
 * Pure: built by the client from the original's replayed state, read by the workflow and views.
 */
import { z } from 'zod';

export const irreversibleCallSchema = z.object({
  turn: z.number().int().positive(),
  callId: z.string(),
  toolName: z.string(),
  summary: z.string(),
  /** The worker stopped mid-call: it may or may not have happened. */
  unknownOutcome: z.boolean().optional(),
});
export type IrreversibleCall = z.infer<typeof irreversibleCallSchema>;

export const lineageSchema = z.object({
  /** fork: a new goal; rewind: the same goal id, a new run, its workspace restored in place. */
  kind: z.enum(['fork', 'rewind']),
  /** The goal it continues from. */
  of: z.string().min(1),
  /** The model turn it continues at: the transcript through turn − 1's results, the files as they were then. */
  turn: z.number().int().positive(),
  /** What the person said to do differently; given to the model as the next user message. */
  say: z.string().optional(),
  /** When the fork was made (client clock). */
  at: z.string(),
  /** Who made it. */
  by: z.string().optional(),
  /** The original's workspace, whose checkpoints the files come from, and this goal's. */
  workspace: z.object({ from: z.string(), to: z.string() }),
  /** The key the original's checkpoints were taken under at that turn (checkpointKey). */
  checkpointKey: z.string().min(1),
  /** The label of the checkpoint holding the turn's files, as the history says; absent: none since. */
  checkpointTurn: z.number().int().positive().optional(),
  /** Irreversible calls the original made at or after `turn`: not undone, listed, never re-sent unasked. */
  irreversibleAfter: z.array(irreversibleCallSchema),
  /** Set once the files are in place; until then the goal's first step is to restore them. */
  restored: z
    .object({
      /** The checkpoint the files came from, or absent when none was at or after the turn (copied as they were). */
      fromTurn: z.number().int().positive().optional(),
      written: z.number().int().nonnegative(),
      removed: z.number().int().nonnegative(),
      /** Calls still running on the workspace that the restore in place waited for (the replaced run's). */
      waitedForCalls: z.number().int().positive().optional(),
    })
    .optional(),
});
export type Lineage = z.infer<typeof lineageSchema>;

/** One line for status views and the CLI. */
export function lineageLine(lineage: Lineage): string {
  const verb = lineage.kind === 'fork' ? 'forked from' : 'rewound from';
  const irreversible = lineage.irreversibleAfter.length;
  const after =
    irreversible === 0
      ? ''
      : `; ${irreversible} irreversible call${irreversible === 1 ? '' : 's'} made after it not undone`;
  return `${verb} ${lineage.of} at turn ${lineage.turn}${after}`;
}

/**
 * The key a goal's workspace checkpoints are taken under: its workflow id, or, after a rewind
 * (same id, a new timeline from the turn it went back to), one per rewind, so the turns it runs
 * again never mix with the checkpoints of the turns it left.
 */
export function checkpointKey(state: { lineage?: Lineage }, workflowId: string): string {
  const lineage = state.lineage;
  return lineage?.kind === 'rewind' ? `${workflowId}~rewind-${lineage.at}` : workflowId;
}
