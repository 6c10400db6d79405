import { z } from 'zod';
import { Reversibility } from '../../../workflows/tools/reversibility';
import { hypothesisField } from '../../../workflows/tools/hypothesis-field';
import type { ToolOutcome } from '../../../workflows/tools/tool-outcome';
import { protectedPathReason } from '../../../workflows/tools/workspace-change-policy';
import { escalation, success } from '../tool-outcomes';
import { outcomeOfRefusal, resolveWorkspacePath } from '../workspace';
import { openFileBeneath } from '../workspace-access/open-beneath';
import { withWorkspaceLock } from '../workspace-access/workspace-lock';
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
  const { segments, relative } = resolution.path;
  const guarded = protectedWrite(relative, context.approved);
  if (guarded !== undefined) return guarded;

  return withWorkspaceLock(context.workspace, async () => {
    let opened;
    try {
      // No link followed at any component, parents created on the way, the target's type checked
      // on its open descriptor: a FIFO or a parent swapped for a symlink cannot redirect the write.
      opened = await openFileBeneath(context.workspace, segments, 'write');
    } catch (error) {
      return outcomeOfRefusal(
        error,
        { workspace: context.workspace, toolName: 'write_file', kind: 'file' },
        relative,
      );
    }
    const { file, created } = opened;
    try {
      const next = Buffer.from(input.content, 'utf8');
      const bytes = next.length;
      const previous = created ? undefined : await file.readFile();
      if (previous?.equals(next)) {
        return success({
          content: `${relative} already has exactly this content (${bytes} bytes); nothing changed.`,
          facts: { bytes },
          effects: { created: [], modified: [], deleted: [] },
        });
      }
      await file.truncate(0);
      await file.write(next, 0, bytes, 0);
      return success({
        content:
          previous === undefined
            ? `Created ${relative} (${bytes} bytes).`
            : `Replaced the content of ${relative} (${previous.length} → ${bytes} bytes).`,
        facts: { bytes },
        effects: { created: created ? [relative] : [], modified: created ? [] : [relative], deleted: [] },
      });
    } finally {
      await file.close();
    }
  });
};

/**
 * A write to git's configuration or hooks (workspace-change-policy.ts) waits for a human unless
 * one approved this call: git would run what they name for whoever uses the repository next.
 */
export function protectedWrite(relative: string, approved: boolean): ToolOutcome | undefined {
  const reason = protectedPathReason(relative);
  if (reason === undefined || approved) return undefined;
  return escalation({
    content: `Not written: ${reason}. A human has to approve this write, and did not.`,
    reason,
  });
}

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
