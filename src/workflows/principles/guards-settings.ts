/**
 * The guards' settings (goal input `guards`): each hard guard can be tuned or switched off, and all
 * at once. Split from guards.ts.
 */
import { z } from 'zod';
import { DEFAULT_PARROT_SIMILARITY } from './checkpoint-parrot';
import { DEFAULT_CHECKPOINT_ESCALATION_SETTINGS } from './checkpoint-escalation';
import { DEFAULT_DENIAL_SETTINGS } from './denial-guard';
import { DEFAULT_HYPOTHESIS_GUARD_SETTINGS } from './hypothesis-guard';
import { DEFAULT_LOOP_SETTINGS, DEFAULT_MAX_CYCLE_LENGTH } from './loop-guard';
import { DEFAULT_STAGNATION_SETTINGS } from './stagnation-guard';

const positive = () => z.number().int().positive();
const nonnegative = () => z.number().int().nonnegative();

export const guardSettingsSchema = z
  .object({
    /** All guards at once; each can also be switched off on its own. */
    enabled: z.boolean().default(true),
    loop: z
      .object({
        enabled: z.boolean().default(DEFAULT_LOOP_SETTINGS.enabled),
        window: positive().max(100).default(DEFAULT_LOOP_SETTINGS.window),
        warnAt: z.number().int().min(2).default(DEFAULT_LOOP_SETTINGS.warnAt),
        stopAt: z.number().int().min(2).default(DEFAULT_LOOP_SETTINGS.stopAt),
        matchResults: z.boolean().default(DEFAULT_LOOP_SETTINGS.matchResults),
        /** Repeated rounds of 2 up to this many calls are cycles (1: cycles off). */
        maxCycleLength: z.number().int().min(1).max(8).default(DEFAULT_MAX_CYCLE_LENGTH),
      })
      .strict()
      .refine((loop) => loop.warnAt <= loop.stopAt, { message: 'warnAt must not exceed stopAt' })
      .refine((loop) => loop.stopAt <= loop.window, { message: 'stopAt must fit in the window' })
      .refine((loop) => 2 * loop.maxCycleLength <= loop.window || loop.maxCycleLength === 1, {
        message: 'two rounds of maxCycleLength calls must fit in the window',
      })
      .prefault({}),
    stagnation: z
      .object({
        enabled: z.boolean().default(DEFAULT_STAGNATION_SETTINGS.enabled),
        window: positive().max(100).default(DEFAULT_STAGNATION_SETTINGS.window),
        warnAfterCalls: nonnegative().default(DEFAULT_STAGNATION_SETTINGS.warnAfterCalls),
        stopAfterCalls: nonnegative().default(DEFAULT_STAGNATION_SETTINGS.stopAfterCalls),
        stopAfterTurns: nonnegative().default(DEFAULT_STAGNATION_SETTINGS.stopAfterTurns),
        exploreWarnAfterCalls: nonnegative().default(DEFAULT_STAGNATION_SETTINGS.exploreWarnAfterCalls),
        exploreStopAfterCalls: nonnegative().default(DEFAULT_STAGNATION_SETTINGS.exploreStopAfterCalls),
      })
      .strict()
      .refine((stagnation) => stagnation.warnAfterCalls <= stagnation.window, {
        message: 'warnAfterCalls must fit in the window',
      })
      .refine((stagnation) => stagnation.stopAfterCalls <= stagnation.window, {
        message: 'stopAfterCalls must fit in the window',
      })
      .prefault({}),
    denials: z
      .object({
        enabled: z.boolean().default(DEFAULT_DENIAL_SETTINGS.enabled),
        stopAfterDenials: z.number().int().min(2).default(DEFAULT_DENIAL_SETTINGS.stopAfterDenials),
      })
      .strict()
      .prefault({}),
    checkpoints: z
      .object({
        enabled: z.boolean().default(DEFAULT_CHECKPOINT_ESCALATION_SETTINGS.enabled),
        minResponseRate: z
          .number()
          .min(0)
          .max(1)
          .default(DEFAULT_CHECKPOINT_ESCALATION_SETTINGS.minResponseRate),
        minCheckpoints: positive().default(DEFAULT_CHECKPOINT_ESCALATION_SETTINGS.minCheckpoints),
        stopAfterHeldTurns: positive().default(DEFAULT_CHECKPOINT_ESCALATION_SETTINGS.stopAfterHeldTurns),
        /** An answer whose words overlap an earlier reply's this much repeats it (1: only identical). */
        repeatSimilarity: z.number().min(0.5).max(1).default(DEFAULT_PARROT_SIMILARITY),
      })
      .strict()
      .prefault({}),
    hypotheses: z
      .object({
        enabled: z.boolean().default(DEFAULT_HYPOTHESIS_GUARD_SETTINGS.enabled),
        warnAfter: positive().default(DEFAULT_HYPOTHESIS_GUARD_SETTINGS.warnAfter),
        stopAfter: positive().default(DEFAULT_HYPOTHESIS_GUARD_SETTINGS.stopAfter),
      })
      .strict()
      .refine((guard) => guard.warnAfter <= guard.stopAfter, {
        message: 'warnAfter must not exceed stopAfter',
      })
      .prefault({}),
  })
  .strict();
export type GuardSettings = z.output<typeof guardSettingsSchema>;
export const DEFAULT_GUARD_SETTINGS: GuardSettings = guardSettingsSchema.parse({});
