import { parseActivityInput } from '../activity-input';
import { z } from 'zod';

/** The activity input itself is malformed: a bug in the caller, not something to retry. */
export const INVALID_HOST_ACTIVITY_INPUT = 'InvalidHostActivityInput';

/** A workspace path as goal input has it: absolute, so every host reads it the same way. */
export const workspacePathSchema = z.string().startsWith('/', 'workspace must be an absolute path');

export function parseHostActivityInput<Schema extends z.ZodType>(
  schema: Schema,
  raw: unknown,
  activity: string,
): z.output<Schema> {
  return parseActivityInput(schema, raw, activity, INVALID_HOST_ACTIVITY_INPUT);
}
