import { z } from 'zod';
import { Reversibility } from '../reversibility';
import { HYPOTHESIS_RECOMMENDED, hypothesisField } from './hypothesis-field';
import type { ToolSpec } from './tool-spec';

/** The most lines one read returns; larger files get an outline and are read in ranges. */
export const READ_FILE_MAX_LINES = 2000;

export const readFileInputSchema = z.object({
  path: z.string().min(1).describe('File path relative to the workspace root, e.g. "src/app.ts".'),
  offset: z
    .number()
    .int()
    .min(1)
    .optional()
    .describe('First line to read (1-based). Use with `limit` to read part of a large file.'),
  limit: z
    .number()
    .int()
    .min(1)
    .max(READ_FILE_MAX_LINES)
    .optional()
    .describe(`How many lines to read from \`offset\` (at most ${READ_FILE_MAX_LINES}).`),
  hypothesis: hypothesisField,
});
export type ReadFileInput = z.infer<typeof readFileInputSchema>;

export const readFileSpec: ToolSpec<ReadFileInput> = {
  name: 'read_file',
  description: [
    'Read a text file in the workspace. Lines come back numbered ("12\\tcontent"); the numbers are not part of the file.',
    `A file longer than ${READ_FILE_MAX_LINES} lines is not returned whole: you get an outline (numbered top-level lines) and then read the part you need with offset/limit.`,
    HYPOTHESIS_RECOMMENDED,
  ].join(' '),
  inputSchema: readFileInputSchema,
  reversibility: () => Reversibility.ReadOnly,
  summarize(input) {
    if (input.offset === undefined && input.limit === undefined) return `read_file: ${input.path}`;
    const first = input.offset ?? 1;
    const last = input.limit === undefined ? 'end' : String(first + input.limit - 1);
    return `read_file: ${input.path} (lines ${first}-${last})`;
  },
};
