import { z } from 'zod';
import { Reversibility } from '../../../workflows/tools/reversibility';
import { hypothesisField } from '../../../workflows/tools/hypothesis-field';
import { success } from '../tool-outcomes';
import { fileStateDigest } from './state-digest';
import { dropPrivilegeBits, privilegeSentence } from './privilege-bits';
import { withWorkspaceFile } from '../workspace-access/workspace-file';
import { defineTool } from '../define-tool';
import type { ToolImplementation } from '../tool-context';

export const writeFileInputSchema = z.object({
  path: z
    .string()
    .min(1)
    .describe('File path relative to the workspace root. Missing parent directories are created.'),
  content: z.string().describe('The complete new content of the file.'),
  hypothesis: hypothesisField,
});
export type WriteFileInput = z.infer<typeof writeFileInputSchema>;

export const writeFile: ToolImplementation<WriteFileInput> = (input, context) =>
  withWorkspaceFile(
    { context, path: input.path, toolName: 'write_file', access: 'write' },
    async (file, relative, created) => {
      const next = Buffer.from(input.content, 'utf8');
      const bytes = next.length;
      const previousSize = created ? undefined : (await file.stat()).size;
      // Read only when the sizes match: the new content bounds what is read, whatever is there.
      if (previousSize === bytes && (await file.readFile()).equals(next)) {
        return success({
          content: `${relative} already has exactly this content (${bytes} bytes); nothing changed.`,
          facts: { bytes },
          effects: { created: [], modified: [], deleted: [] },
        });
      }
      await file.truncate(0);
      await file.write(next, 0, bytes, 0);
      const removed = await dropPrivilegeBits(file, relative);
      return success({
        content:
          (previousSize === undefined
            ? `Created ${relative} (${bytes} bytes).`
            : `Replaced the content of ${relative} (${previousSize} → ${bytes} bytes).`) +
          privilegeSentence(removed),
        facts: { bytes },
        effects: {
          created: created ? [relative] : [],
          modified: created ? [] : [relative],
          deleted: [],
          stateDigest: fileStateDigest(relative, next),
        },
      });
    },
  );

/** The built-in write_file tool, defined with the same public API as any user tool. */
export const writeFileTool = defineTool({
  name: 'write_file',
  input: writeFileInputSchema,
  reversibility: Reversibility.Mutating,
  description:
    'Create a file or replace its whole content. To change part of an existing file, prefer edit_file.',
  summarize: (input) => `write_file: ${input.path} (${input.content.length} chars)`,
  execute: writeFile,
});
