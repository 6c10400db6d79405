import type { FileHandle } from 'node:fs/promises';
import { privilegesToApply } from '../../../workflows/tools/workspace-change-policy';

/**
 * After write_file or edit_file gave a file new content: the setuid, setgid and sticky bits it
 * had go, by the same rule as a command's layer (privilegesToApply, new content). The kernel
 * clears setuid on a write only for a writer without CAP_FSETID, and the worker may run as root,
 * so a setuid program the model rewrote would otherwise run its new content with the owner's
 * rights. A file whose content did not change is not touched. Returns what was removed, for the
 * result ("setuid bit removed from x").
 */
export async function dropPrivilegeBits(file: FileHandle, relative: string): Promise<string[]> {
  const { mode, uid, gid } = await file.stat();
  const applied = privilegesToApply({
    path: relative,
    layer: { mode, uid, gid },
    before: { mode, uid, gid, sameContent: false },
    worker: { uid, gid },
  });
  if (applied.mode !== (mode & 0o7777)) await file.chmod(applied.mode);
  return applied.notes;
}

/** The notes as a sentence to append to a tool's result, or nothing. */
export function privilegeSentence(notes: readonly string[]): string {
  return notes.length === 0 ? '' : ` ${notes.join('; ')}: new content never keeps them.`;
}
