import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';

/**
 * An activity's input, validated at the boundary. A malformed input is a bug in the caller that a
 * retry cannot mend, so it fails non-retryable with the activity family's `failureType`.
 */
export function parseActivityInput<Schema extends z.ZodType>(
  schema: Schema,
  raw: unknown,
  activity: string,
  failureType: string,
): z.output<Schema> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  throw ApplicationFailure.nonRetryable(
    `Invalid ${activity} input: ${z.prettifyError(parsed.error)}`,
    failureType,
  );
}
