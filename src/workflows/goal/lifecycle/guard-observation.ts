import { z } from 'zod';

/**
 * What the guards read of a call's outcome when it ran (oversight/guards.ts), kept on the call
 * record, not in the run's memory: a turn parked on humans may hand over to a new run mid-turn,
 * and the turn's end, in that run, judges every call of it.
 */
export const guardObservationSchema = z.lazy(() =>
  z.object({
    atToolCall: z.number(),
    candidates: z.array(z.string()),
    /** A successful mutating or irreversible call. */
    changed: z.boolean(),
    /** What the changed files hold afterwards (effects.stateDigest), when the tool says. */
    stateAfter: z.string().optional(),
    hypothesisMismatch: z.boolean().optional(),
  }),
);
