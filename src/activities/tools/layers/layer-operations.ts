import { z } from 'zod';

/**
 * What applying a layer does to the workspace, in order. Derived from the layer alone, so the
 * list is both the plan and the record: a worker that dies midway resumes it (each step is safe
 * to repeat: a removal of what is gone, a move whose source is gone, a mode set again).
 */
export const layerOperationSchema = z.discriminatedUnion('op', [
  /** Removes the workspace entry (a whole directory tree, a file, a link). */
  z.object({ op: z.literal('remove'), path: z.string() }),
  /** Renames the layer's entry (a file, a link, or a whole new directory) into the workspace. */
  z.object({ op: z.literal('move'), path: z.string() }),
  /** A directory that stays: its mode, set after everything inside it is applied. */
  z.object({ op: z.literal('directory'), path: z.string(), mode: z.number().int() }),
]);
export type LayerOperation = z.infer<typeof layerOperationSchema>;

/**
 * What the workspace held at a path when the layer was taken, to tell at apply time whether
 * someone else changed it since (then nothing is applied). null: nothing was there.
 */
export const fingerprintSchema = z
  .object({ type: z.string(), size: z.number(), mtimeMs: z.number(), ino: z.number() })
  .nullable();
export type Fingerprint = z.infer<typeof fingerprintSchema>;

export const baselineEntrySchema = z.object({ path: z.string(), fingerprint: fingerprintSchema });
export type BaselineEntry = z.infer<typeof baselineEntrySchema>;
