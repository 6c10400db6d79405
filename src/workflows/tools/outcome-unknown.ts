import { z } from 'zod';

/**
 * The details of an OutcomeUnknown failure: whether the irreversible call began, as the tool
 * activity read it from its journal ('unknown' when an earlier attempt used a journal this worker
 * cannot read). Shared by the activity that throws it and the workflow that reports it.
 */
export const outcomeUnknownDetailsSchema = z.lazy(() =>
  z.object({
    began: z.union([z.literal(true), z.literal('unknown')]),
    startedAt: z.string().optional(),
  }),
);
export type OutcomeUnknownDetails = z.infer<typeof outcomeUnknownDetailsSchema>;
