import { z } from 'zod';

/**
 * Every tool accepts a hypothesis (principle 1: hypothesis first). The tool itself ignores it; the
 * workflow later compares it with the outcome's facts, so stating it costs the model one sentence
 * and buys a check on whether its picture of the workspace is right.
 */
export const hypothesisField = z
  .string()
  .optional()
  .describe(
    'What you expect this call to show, stated before you see it, e.g. "I expect to see a function named parseConfig". Compared with the result afterwards.',
  );

/** Appended to the descriptions of costly tools. */
export const HYPOTHESIS_RECOMMENDED =
  'State a `hypothesis` (what you expect to see) before calling: it is checked against the result.';
