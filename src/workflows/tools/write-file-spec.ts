import { z } from 'zod';
import { Reversibility } from '../reversibility';
import { hypothesisField } from './hypothesis-field';
import type { ToolSpec } from './tool-spec';

export const writeFileInputSchema = z.object({
  path: z
    .string()
    .min(1)
    .describe('File path relative to the workspace root. Missing parent directories are created.'),
  content: z.string().describe('The complete new content of the file.'),
  hypothesis: hypothesisField,
});
export type WriteFileInput = z.infer<typeof writeFileInputSchema>;

export const writeFileSpec: ToolSpec<WriteFileInput> = {
  name: 'write_file',
  description:
    'Create a file or replace its whole content. To change part of an existing file, prefer edit_file.',
  inputSchema: writeFileInputSchema,
  reversibility: () => Reversibility.Mutating,
  summarize: (input) => `write_file: ${input.path} (${input.content.length} chars)`,
};
