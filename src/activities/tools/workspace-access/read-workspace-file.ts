import type { ToolOutcome } from '../../../workflows/tools/tool-outcome';
import { failure } from '../tool-outcomes';
import { outcomeOfRefusal, resolveWorkspacePath } from '../workspace';
import { openFileBeneath } from './open-beneath';

export type WorkspaceFileRead =
  | { readonly ok: true; readonly path: string; readonly content: Buffer }
  | { readonly ok: false; readonly outcome: ToolOutcome };

/**
 * Reads a file of the goal's workspace the way keel's own tools do, for tools of your own: the
 * path the model gave is checked (absolute paths and `..` out of the workspace are refused), and
 * the file is opened without following a symbolic link anywhere on the way and checked on the
 * open descriptor, so a link, FIFO or device the model planted cannot lead the read elsewhere.
 * A refusal comes back as an outcome the tool returns as it is: the model reads why, and what to
 * do instead.
 *
 *   const file = await readWorkspaceFile(context, input.path, { toolName: 'count_words' });
 *   if (!file.ok) return file.outcome;
 */
export async function readWorkspaceFile(
  context: { readonly workspace: string },
  requested: string,
  options: { toolName: string; maxBytes?: number },
): Promise<WorkspaceFileRead> {
  const { toolName, maxBytes = 10 * 1024 * 1024 } = options;
  const resolution = await resolveWorkspacePath({ workspace: context.workspace, path: requested, toolName });
  if (!resolution.ok) return resolution;
  const { segments, relative } = resolution.path;
  let opened;
  try {
    opened = await openFileBeneath(context.workspace, segments, 'read');
  } catch (error) {
    const outcome = await outcomeOfRefusal(
      error,
      { workspace: context.workspace, toolName, kind: 'file' },
      relative,
    );
    return { ok: false, outcome };
  }
  try {
    if (opened.info.size > maxBytes) {
      return {
        ok: false,
        outcome: failure({
          content: `${relative} is ${opened.info.size} bytes, more than ${toolName} reads (${maxBytes}).`,
          candidates: [`Choose a smaller file, or a tool that reads ${relative} in parts`],
        }),
      };
    }
    return { ok: true, path: relative, content: await opened.file.readFile() };
  } finally {
    await opened.file.close();
  }
}
