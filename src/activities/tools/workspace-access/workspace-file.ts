import type { FileHandle } from 'node:fs/promises';
import type { ToolOutcome } from '../../../workflows/tools/tool-outcome';
import { gitSurroundingsReason, protectedPathReason } from '../../../workflows/tools/workspace-change-policy';
import type { ToolContext } from '../tool-context';
import { escalation } from '../tool-outcomes';
import { outcomeOfRefusal, resolveWorkspacePath } from '../workspace';
import { holdingsAbove } from './git-directory-holdings';
import { gitIncludedConfigs } from './git-included-configs';
import { openFileBeneath } from './open-beneath';
import { withWorkspaceLock } from './workspace-lock';

/**
 * How write_file and edit_file reach the file they change: the path checked lexically, a write to
 * git's configuration or hooks held for a human unless one approved the call, one writer at a time
 * per workspace, and the file opened without following a link at any component, its type checked
 * on the descriptor (a FIFO or a parent swapped for a symlink cannot redirect the write).
 * `use` gets the open file (closed afterwards) and whether it was just created.
 */
export async function withWorkspaceFile(
  options: { context: ToolContext; path: string; toolName: string; access: 'update' | 'write' },
  use: (file: FileHandle, relative: string, created: boolean) => Promise<ToolOutcome>,
): Promise<ToolOutcome> {
  const { context, toolName } = options;
  const resolution = await resolveWorkspacePath({
    workspace: context.workspace,
    path: options.path,
    toolName,
  });
  if (!resolution.ok) return resolution.outcome;
  const { segments, relative } = resolution.path;
  return withWorkspaceLock(context.workspace, async () => {
    // Under the lock: what the directories above hold is read as the write will find them.
    const guarded = protectedWrite(
      protectedPathReason(relative) ??
        gitSurroundingsReason(relative, {
          holdings: await holdingsAbove(context.workspace, segments),
          includedConfigs: await gitIncludedConfigs(context.workspace),
        }),
      context.approved,
    );
    if (guarded !== undefined) return guarded;
    let opened;
    try {
      opened = await openFileBeneath(context.workspace, segments, options.access);
    } catch (error) {
      return outcomeOfRefusal(error, { workspace: context.workspace, toolName, kind: 'file' }, relative);
    }
    try {
      return await use(opened.file, relative, opened.created);
    } finally {
      await opened.file.close();
    }
  });
}

/**
 * A write to git's configuration or hooks, or one that makes a directory a repository
 * (workspace-change-policy.ts), waits for a human unless one approved this call: git would run
 * what they name for whoever uses the repository next.
 */
function protectedWrite(reason: string | undefined, approved: boolean): ToolOutcome | undefined {
  if (reason === undefined || approved) return undefined;
  return escalation({
    content: `Not written: ${reason}. A human has to approve this write, and did not.`,
    reason,
  });
}
