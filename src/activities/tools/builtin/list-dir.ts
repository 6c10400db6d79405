import { z } from 'zod';
import { Reversibility } from '../../../workflows/tools/reversibility';
import { hypothesisField } from '../../../workflows/tools/hypothesis-field';
import { lstat, readdir, readlink, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { suggestCall } from '../../../workflows/tools/suggest-call';
import { failure, success } from '../tool-outcomes';
import { outcomeOfRefusal, statWorkspacePath } from '../workspace';
import { entryPath, openDirectoryBeneath } from '../workspace-access/open-beneath';
import { defineTool } from '../define-tool';
import type { ToolImplementation } from '../tool-context';

export const listDirInputSchema = z.object({
  path: z.string().optional().describe('Directory relative to the workspace root; omit or "." for the root.'),
  hypothesis: hypothesisField,
});
export type ListDirInput = z.infer<typeof listDirInputSchema>;

/** Entries listed at most; a bigger directory is better explored with search or find. */
export const LIST_DIR_MAX_ENTRIES = 1000;

export const listDir: ToolImplementation<ListDirInput> = async (input, context) => {
  const existing = await statWorkspacePath({
    workspace: context.workspace,
    path: input.path ?? '.',
    toolName: 'list_dir',
    kind: 'directory',
  });
  if (!existing.ok) return existing.outcome;
  const {
    path: { segments, relative },
    info,
  } = existing;
  if (!info.isDirectory()) {
    return failure({
      content: `"${relative}" is a file (${info.size} bytes), not a directory.`,
      candidates: [
        `${suggestCall('read_file', { path: relative })} — read it`,
        `${suggestCall('list_dir', { path: path.posix.dirname(relative) })} — list the directory that holds it`,
      ],
    });
  }
  let directory: FileHandle;
  try {
    // Listed through a descriptor opened without following links (see open-beneath.ts).
    directory = await openDirectoryBeneath(context.workspace, segments);
  } catch (error) {
    return outcomeOfRefusal(
      error,
      { workspace: context.workspace, toolName: 'list_dir', kind: 'directory' },
      relative,
    );
  }
  try {
    const entries = (await readdir(`/proc/self/fd/${directory.fd}`, { withFileTypes: true })).sort(
      (left, right) => (left.name < right.name ? -1 : left.name > right.name ? 1 : 0),
    );
    const shown = entries.slice(0, LIST_DIR_MAX_ENTRIES);
    const lines: string[] = [];
    for (const entry of shown) lines.push(await describeEntry(entryPath(directory, entry.name), entry.name));
    if (entries.length === 0) {
      return success({ content: `${relative} is empty.`, facts: { emptyOutput: true, truncated: false } });
    }
    const truncated = entries.length > shown.length;
    const header = `${relative} (${entries.length} entries${truncated ? `, first ${shown.length} shown` : ''}):`;
    return success({ content: [header, ...lines].join('\n'), facts: { emptyOutput: false, truncated } });
  } finally {
    await directory.close();
  }
};

async function describeEntry(entry: string, name: string): Promise<string> {
  try {
    const info = await lstat(entry);
    if (info.isDirectory()) return `${name}/`;
    if (info.isSymbolicLink()) return `${name} -> ${await readlink(entry)}`;
    if (info.isFile()) return `${name} (${info.size} bytes)`;
    return `${name} (special file)`;
  } catch {
    return `${name} (unreadable)`;
  }
}

/** The built-in list_dir tool, defined with the same public API as any user tool. */
export const listDirTool = defineTool({
  name: 'list_dir',
  input: listDirInputSchema,
  reversibility: Reversibility.ReadOnly,
  description:
    'List the entries of one directory in the workspace (not recursive). Directories end with "/", files show their size in bytes, symbolic links show their target.',
  summarize: (input) => `list_dir: ${input.path ?? '.'}`,
  execute: listDir,
});
