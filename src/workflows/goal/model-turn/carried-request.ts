import { z } from 'zod';

/** A stored request as continue-as-new carries it: its messages are the transcript's first ones. */
export const carriedModelRequestSchema = z.lazy(() =>
  z.object({
    key: z.string(),
    messageCount: z.number().int().positive(),
    system: z.string(),
    toolsJson: z.string(),
  }),
);
export type CarriedModelRequest = z.infer<typeof carriedModelRequestSchema>;
