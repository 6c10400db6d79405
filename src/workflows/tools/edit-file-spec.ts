import { z } from 'zod';
import { Reversibility } from '../reversibility';
import { hypothesisField } from './hypothesis-field';
import type { ToolSpec } from './tool-spec';

export const editFileInputSchema = z.object({
  path: z.string().min(1).describe('File path relative to the workspace root.'),
  oldString: z
    .string()
    .min(1)
    .describe(
      'Exact text to replace, including whitespace and indentation. It must occur exactly once in the file: include enough surrounding lines to make it unique. Do not include read_file line numbers.',
    ),
  newString: z.string().describe('The text that replaces oldString.'),
  hypothesis: hypothesisField,
});
export type EditFileInput = z.infer<typeof editFileInputSchema>;

export const editFileSpec: ToolSpec<EditFileInput> = {
  name: 'edit_file',
  description:
    'Replace one exact occurrence of oldString with newString in a file. Fails, changing nothing, when oldString occurs zero times or more than once, and says how many times it occurs.',
  inputSchema: editFileInputSchema,
  reversibility: () => Reversibility.Mutating,
  summarize: (input) => `edit_file: ${input.path}`,
};
