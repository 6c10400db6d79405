import { z } from 'zod';
import { Reversibility } from '../../../workflows/tools/reversibility';
import { hypothesisField } from '../../../workflows/tools/hypothesis-field';
import { mkdir, readFile, stat, writeFile as writeFileToDisk } from 'node:fs/promises';
import path from 'node:path';
import { suggestCall } from '../../../workflows/tools/suggest-call';
import { failure, isSystemError, success } from '../tool-outcomes';
import { resolveWorkspacePath } from '../workspace';
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

export const writeFile: ToolImplementation<WriteFileInput> = async (input, context) => {
  const resolution = await resolveWorkspacePath({
    workspace: context.workspace,
    path: input.path,
    toolName: 'write_file',
  });
  if (!resolution.ok) return resolution.outcome;
  const { absolute, relative } = resolution.path;

  let previous: Buffer | undefined;
  try {
    const info = await stat(absolute);
    if (info.isDirectory()) {
      return failure({
        content: `"${relative}" is a directory; write_file needs a file path.`,
        candidates: [
          `${suggestCall('list_dir', { path: relative })} — see what it contains`,
          `Call write_file with a file path inside it, e.g. "${relative}/NAME"`,
        ],
      });
    }
    previous = await readFile(absolute);
  } catch (error) {
    if (!isSystemError(error) || error.code !== 'ENOENT') throw error;
  }

  const next = Buffer.from(input.content, 'utf8');
  const bytes = next.length;
  if (previous?.equals(next)) {
    return success({
      content: `${relative} already has exactly this content (${bytes} bytes); nothing changed.`,
      facts: { bytes },
      effects: { created: [], modified: [], deleted: [] },
    });
  }
  await mkdir(path.dirname(absolute), { recursive: true });
  await writeFileToDisk(absolute, next);
  const created = previous === undefined;
  return success({
    content:
      previous === undefined
        ? `Created ${relative} (${bytes} bytes).`
        : `Replaced the content of ${relative} (${previous.length} → ${bytes} bytes).`,
    facts: { bytes },
    effects: { created: created ? [relative] : [], modified: created ? [] : [relative], deleted: [] },
  });
};

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
