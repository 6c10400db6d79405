import { z } from 'zod';

/**
 * A harness tool: the model reports the active plan step as completed or failed. It runs inside
 * the workflow (it only changes the plan), never as an activity, and is offered only to goals
 * that plan.
 */
export const reportStepInputSchema = z
  .object({
    status: z
      .enum(['completed', 'failed'])
      .describe('Whether the active plan step is done or cannot be done.'),
    reason: z.string().min(1).describe('What shows it: the evidence for completed, the cause for failed.'),
  })
  .strict();
export type ReportStepInput = z.infer<typeof reportStepInputSchema>;

export const REPORT_STEP_TOOL = 'report_step';

export const REPORT_STEP_DESCRIPTION =
  'Report the active step of the current plan as completed or failed. Call it as soon as the step is done or clearly cannot be done; a failed step makes keel plan again with a different approach.';
