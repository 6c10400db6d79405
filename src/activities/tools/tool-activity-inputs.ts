/** The inputs of the tool activities: their schemas, and parsing one or failing the activity. */
import { z } from 'zod';
import { reversibilityTierSchema } from '../../workflows/tools/tool-catalogue';
import { earlierAttemptSchema } from '../../workflows/tools/earlier-attempts';
import { parseActivityInput } from '../activity-input';
import { ToolActivityFailureType } from './tool-activity-failures';

export const executeToolInputSchema = z.object({
  toolName: z.string().min(1),
  /** The input as prepared (validated, defaults applied); validated again here. */
  input: z.unknown(),
  workspace: z.string().min(1),
  callId: z.string().min(1),
  /** Stable across retries of this call (workflow id + call id). */
  idempotencyKey: z.string().min(1),
  /** As decided before the call; irreversible calls run at most once. */
  reversibility: reversibilityTierSchema,
  /**
   * Whether a human approved this call before it ran. Absent (inputs scheduled before it existed,
   * or anything a caller forgot): not approved, the safe reading.
   */
  approved: z.boolean().default(false),
  /** The goal's sandbox settings; absent in inputs scheduled before they existed. */
  sandbox: z.object({ network: z.boolean() }).default({ network: false }),
  /** The goal's workspace host: a worker of another host refuses the call (WrongHost). */
  host: z.string().optional(),
  /**
   * An irreversible call's attempts on hosts the goal has since left (earlier-attempts.ts): this
   * worker's journal decides only if every one that may have begun used it.
   */
  earlierAttempts: z.array(earlierAttemptSchema).optional(),
  /**
   * The paths a human's denials in this goal cover (denied-effects.ts), relative to the workspace:
   * a command whose layer would change one is held for a human, whatever its text (issue 44).
   */
  deniedEffects: z.array(z.string()).optional(),
  /**
   * A changing call's turn checkpoint (workflows/goal/lineage/turn-checkpoint.ts): the workspace is
   * kept as it is before the turn's first change, under this key and label (issue 48).
   */
  checkpoint: z
    .object({
      key: z.string().min(1),
      turn: z.number().int().positive(),
      retainTurns: z.number().int().min(1).optional(),
      retainForMs: z.number().int().min(1).optional(),
    })
    .optional(),
});
export type ExecuteToolInput = z.input<typeof executeToolInputSchema>;

export const prepareToolCallsInputSchema = z.object({
  calls: z.array(z.object({ callId: z.string(), toolName: z.string(), input: z.unknown() })),
  sandbox: z.object({ network: z.boolean() }).default({ network: false }),
});
export type PrepareToolCallsInput = z.input<typeof prepareToolCallsInputSchema>;

export const settleHeldChangesInputSchema = z.object({
  workspace: z.string().min(1),
  /** The held call's idempotency key: its layer is kept under it. */
  idempotencyKey: z.string().min(1),
  /** true: a human approved, apply the layer; false: discard it. */
  keep: z.boolean(),
  host: z.string().optional(),
});
export type SettleHeldChangesInput = z.input<typeof settleHeldChangesInputSchema>;

export const describeToolsInputSchema = z.object({ patterns: z.array(z.string()).optional() });
export type DescribeToolsInput = z.infer<typeof describeToolsInputSchema>;

export function parseOrFail<Schema extends z.ZodType>(
  schema: Schema,
  raw: unknown,
  activity: string,
): z.output<Schema> {
  return parseActivityInput(schema, raw, activity, ToolActivityFailureType.InvalidToolActivityInput);
}
