/**
 * The guards' state (kept in the goal's state), its start, and the facts of a finished turn the
 * guards read. Split from guards.ts so each guard's module can share them.
 */
import { z } from 'zod';
import { initialCheckpointRecord } from './checkpoint-escalation';
import { deniedIntentSchema } from './denial-guard';
import { type RecordedCall } from './denial-record';
import type { GuardSettings } from './guards-settings';
import { initialProgressMemory, progressMemorySchema } from './progress';
import { waitingSchema } from './waiting';

const stretchSchema = z.object({
  atToolCall: z.number().int().nonnegative(),
  atTurn: z.number().int().nonnegative(),
  warned: z.boolean(),
  /** Calls in the stretch that declared a wait: waiting is bounded by time, not counted here (waiting.ts). */
  waitCalls: z.number().int().nonnegative().optional(),
});

export const guardsStateSchema = z.lazy(() =>
  z.object({
    /** The loop guard's window: the latest calls, oldest first. */
    recentCalls: z.array(
      z.object({ key: z.string(), result: z.string(), summary: z.string(), atToolCall: z.number().int() }),
    ),
    /** Calls the model was told it repeats; a further repeat of one of these stops the goal. */
    loopWarnedKeys: z.array(z.string()),
    /** The last time something new came (or the start of the goal, task or plan attempt). */
    progress: stretchSchema.extend({
      /** The progress mark (facts.progressCycle) as last seen, to notice a completed plan step. */
      cycleSeen: z.number().int().nonnegative().optional(),
    }),
    /** The last new lasting state (absent in state from before issue 22: starts at `progress`). */
    exploration: stretchSchema.optional(),
    /** What the task has seen (progress.ts). */
    memory: progressMemorySchema.default(initialProgressMemory),
    /** Whether each of the latest calls brought something new, oldest first. */
    recentProgress: z.array(z.boolean()).default([]),
    /** Every warning given, by what it was about, and the turn it was given in. */
    warnings: z
      .array(
        z.object({
          about: z.string(),
          atTurn: z.number().int().nonnegative(),
          atToolCall: z.number().int().nonnegative().optional(),
        }),
      )
      .default([]),
    /** Intents denied in this goal, with how often. */
    denied: z.array(deniedIntentSchema).default([]),
    /** The model's latest replies, as shapes with their turn (checkpoint-parrot.ts). */
    replies: z.array(z.object({ shape: z.string(), atTurn: z.number().int().nonnegative() })).default([]),
    hypotheses: z.object({ streak: z.number().int().nonnegative(), warned: z.boolean() }),
    /** The call being waited on, and for how long (waiting.ts). */
    waiting: waitingSchema.optional(),
    checkpoints: z.object({
      judged: z.number().int().nonnegative(),
      answered: z.number().int().nonnegative(),
      escalated: z.boolean(),
      heldTurns: z.number().int().nonnegative(),
    }),
    /** Every decision taken (warnings, escalations, stops), for the status view. */
    decisions: z.number().int().nonnegative(),
  }),
);
export type GuardsState = z.output<typeof guardsStateSchema>;

export function initialGuardsState(at: {
  toolCalls: number;
  modelTurns: number;
  progressCycle?: number;
}): GuardsState {
  const stretch = { atToolCall: at.toolCalls, atTurn: at.modelTurns, warned: false };
  return {
    recentCalls: [],
    loopWarnedKeys: [],
    progress: { ...stretch, ...(at.progressCycle === undefined ? {} : { cycleSeen: at.progressCycle }) },
    exploration: { ...stretch },
    memory: initialProgressMemory(),
    recentProgress: [],
    warnings: [],
    denied: [],
    replies: [],
    hypotheses: { streak: 0, warned: false },
    checkpoints: initialCheckpointRecord(),
    decisions: 0,
  };
}

/** One call of the finished turn, as the guards see it (executed, answered by the harness, or denied). */
export interface GuardedCall extends RecordedCall {
  summary: string;
  resultText: string;
  failed: boolean;
  /** The tool's own next actions when it failed. */
  candidates: readonly string[];
  /** The goal's tool-call count for this call. */
  atToolCall: number;
  /** What the workspace holds after a change, when the tool knows (effects.stateDigest). */
  stateAfter?: string;
  /** true/false when the call stated a hypothesis that did / did not match; undefined without one. */
  hypothesisMismatch: boolean | undefined;
}

export interface TurnFacts {
  calls: readonly GuardedCall[];
  toolCalls: number;
  modelTurns: number;
  /** A mark that moves when a plan step is completed (the plan's completed steps); undefined without a plan. */
  progressCycle: number | undefined;
  /** "stops the goal as stuck" or "fails the active plan step": said in every prompt. */
  consequence: string;
}

/** A turn's context for the decisions about one call. */
export interface TurnContext {
  settings: GuardSettings;
  modelTurns: number;
  consequence: string;
}
