/**
 * `keel fork` and `keel rewind` as Updates on the goal (issue 48), so a UI (or any Temporal
 * client) can take a goal back without the keel CLI. The goal's worker does what the CLI does:
 * replays the goal's history to the turn (client/fork), then starts the fork, or continues the
 * goal itself as a new run from that turn (a rewind). Re-exported by ../messages.ts.
 */
import { defineUpdate } from '@temporalio/workflow';
import { z } from 'zod';
import type { IrreversibleCall } from './lineage';

const turnSchema = z.number().int().positive();
const saySchema = z.string().trim().min(1).max(20_000).optional();
const bySchema = z.string().trim().min(1).max(200).default('unknown');

export const forkPayloadSchema = z
  .object({
    /** The model turn the fork continues at (keel status shows the turns). */
    atTurn: turnSchema,
    /** What to do differently: the next message the fork's model reads. */
    say: saySchema,
    /** The fork's workspace, absolute, new or empty; default: beside the original's. */
    workspace: z.string().min(1).max(4096).optional(),
    /** The fork's goal id; default `<goal>-fork-t<turn>-<random>`. */
    id: z.string().trim().min(1).max(400).optional(),
    by: bySchema,
  })
  .strict();
export type ForkPayload = z.input<typeof forkPayloadSchema>;

export interface ForkReceipt {
  forkId: string;
  turn: number;
  workspace: string;
  /** Irreversible calls this goal made from that turn on: not undone, never re-sent unasked. */
  irreversibleAfter: IrreversibleCall[];
}

export const rewindPayloadSchema = z
  .object({
    toTurn: turnSchema,
    say: saySchema,
    /**
     * Go back although irreversible calls were made since (the CLI's --yes). Without it, a goal
     * with such calls refuses, listing them, and nothing changes.
     */
    acknowledgeIrreversible: z.boolean().optional(),
    by: bySchema,
  })
  .strict();
export type RewindPayload = z.input<typeof rewindPayloadSchema>;

export interface RewindReceipt {
  turn: number;
  workspace: string;
  irreversibleAfter: IrreversibleCall[];
}

/** The Update's failure type when irreversible calls were made since and not acknowledged. */
export const REWIND_NOT_ACKNOWLEDGED = 'RewindNotAcknowledged';

export const forkGoalUpdate = defineUpdate<ForkReceipt, [ForkPayload]>('forkGoal');
export const rewindGoalUpdate = defineUpdate<RewindReceipt, [RewindPayload]>('rewindGoal');

export const LINEAGE_DESCRIPTIONS = {
  forkGoal:
    'Start a new goal that continues from a turn of this one, its files as they were then: {"atTurn": 12, "say": "try X instead", "by": "..."}; answers the fork\'s id and workspace',
  rewindGoal:
    'Take this goal back to a turn in place, its files with it: {"toTurn": 12, "say": "...", "by": "..."}; refused, listing them, when irreversible calls were made since, unless "acknowledgeIrreversible": true',
} as const;
