import { z } from 'zod';
import { Reversibility } from '../reversibility';
import { HYPOTHESIS_RECOMMENDED, hypothesisField } from './hypothesis-field';
import { shorten } from './suggest-call';
import type { ToolSpec } from './tool-spec';

export const SEARCH_MAX_RESULTS = 500;

export const searchInputSchema = z.object({
  pattern: z
    .string()
    .min(1)
    .describe(
      'Regular expression (JavaScript syntax) matched against each line, e.g. "parse(Config|Options)".',
    ),
  path: z
    .string()
    .optional()
    .describe(
      'File or directory to search, relative to the workspace root; omit or "." for the whole workspace.',
    ),
  caseInsensitive: z.boolean().optional().describe('Match regardless of letter case. Default false.'),
  maxResults: z
    .number()
    .int()
    .min(1)
    .max(SEARCH_MAX_RESULTS)
    .optional()
    .describe('How many matching lines to show (default 100); all matches are still counted.'),
  hypothesis: hypothesisField,
});
export type SearchInput = z.infer<typeof searchInputSchema>;

export const searchSpec: ToolSpec<SearchInput> = {
  name: 'search',
  description: [
    'Search file contents in the workspace with a regular expression, line by line. Returns "path:line: text" for each matching line and the total match count.',
    'Skips node_modules, .git, binary files, symbolic links and files over 1 MB.',
    `Searching the whole workspace is costly: ${HYPOTHESIS_RECOMMENDED}`,
  ].join(' '),
  inputSchema: searchInputSchema,
  reversibility: () => Reversibility.ReadOnly,
  summarize: (input) =>
    `search: /${shorten(input.pattern, 60)}/${input.caseInsensitive === true ? 'i' : ''} in ${input.path ?? '.'}`,
};
