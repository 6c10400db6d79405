import { z } from 'zod';
import { DEFAULT_REFLECTION_CADENCE } from './cadence';

/**
 * Opt-in dynamic cadence for checkpoints (beyond the seed's static cadence).
 *
 * The rule, applied after each event, always clamped to [min, max]:
 * - 'tool-failed' or 'approval-denied' → tighter: halve the current cadence (rounded down).
 *   A failure or a refusal is where an agent starts flailing, so it should recalibrate sooner.
 * - 'mutating-succeeded' → looser: current + 2. A successful change is evidence of progress,
 *   so checkpoints can come less often.
 * - 'task-started' → back to base: a new task deserves a fresh rhythm.
 * A base of 0 (or less) means checkpoints are off, and stays 0 whatever happens.
 */
export const CadenceEvent = {
  ToolFailed: 'tool-failed',
  ApprovalDenied: 'approval-denied',
  MutatingSucceeded: 'mutating-succeeded',
  TaskStarted: 'task-started',
} as const;
export type CadenceEvent = (typeof CadenceEvent)[keyof typeof CadenceEvent];

/** How much one successful mutating step loosens the cadence. */
export const LOOSEN_STEP = 2;

export const dynamicCadenceSettingsSchema = z
  .object({
    base: z.number().int().nonnegative(),
    min: z.number().int().positive(),
    max: z.number().int().positive(),
  })
  .refine((settings) => settings.min <= settings.max, { message: 'min must not exceed max' });
export type DynamicCadenceSettings = z.infer<typeof dynamicCadenceSettingsSchema>;

/** Around the default 7: at most twice as often, at most twice as rarely. */
export const DEFAULT_DYNAMIC_CADENCE_SETTINGS: DynamicCadenceSettings = {
  base: DEFAULT_REFLECTION_CADENCE,
  min: 3,
  max: 14,
};

export interface NextCadenceOptions {
  current: number;
  settings: DynamicCadenceSettings;
  event: CadenceEvent;
}

/** The cadence to use after `event`; see the rule at the top of this file. */
export function nextCadence({ current, settings, event }: NextCadenceOptions): number {
  if (settings.base <= 0) return 0;
  const proposed =
    event === CadenceEvent.TaskStarted
      ? settings.base
      : event === CadenceEvent.MutatingSucceeded
        ? current + LOOSEN_STEP
        : Math.floor(current / 2);
  // max first, then min: if a caller skipped the schema and min > max, min wins (more checkpoints).
  return Math.max(settings.min, Math.min(settings.max, proposed));
}
