import { z } from 'zod';
import { Reversibility } from '../reversibility';
import { hypothesisField } from './hypothesis-field';
import type { ToolSpec } from './tool-spec';

export const listDirInputSchema = z.object({
  path: z.string().optional().describe('Directory relative to the workspace root; omit or "." for the root.'),
  hypothesis: hypothesisField,
});
export type ListDirInput = z.infer<typeof listDirInputSchema>;

export const listDirSpec: ToolSpec<ListDirInput> = {
  name: 'list_dir',
  description:
    'List the entries of one directory in the workspace (not recursive). Directories end with "/", files show their size in bytes, symbolic links show their target.',
  inputSchema: listDirInputSchema,
  reversibility: () => Reversibility.ReadOnly,
  summarize: (input) => `list_dir: ${input.path ?? '.'}`,
};
