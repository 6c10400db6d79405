import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { workspaceStateDirectory } from '../hosts/workspace-state-directory';
import { walkFiles } from '../tools/walk-files';
import { noteKeelWriteOn } from '../lineage/turn-checkpoints';
import { openFileBeneath, readRegularFile, segmentsOf } from '../tools/workspace-access/open-beneath';

export interface WorkspaceBackupInput {
  workspace: string;
  /** Stable per goal and plan attempt, so a retried backup overwrites rather than duplicates. */
  backupId: string;
}

const MAX_BACKUP_FILES = 5000;
const MAX_BACKUP_BYTES = 200 * 1024 * 1024;

/**
 * Copies of the workspace's files, taken before a plan's first mutating step, so a backtrack with
 * rollbackOnBacktrack can put the files back the way they were (a compensation, not an undo of
 * effects outside the workspace). node_modules and .git are not copied.
 */
export function createBackupActivities(options: {
  /**
   * A configured store for every workspace's backups (KEEL_BACKUP_DIR); when omitted, each
   * workspace's backups are kept beside it, on its own host (workspaceStateDirectory).
   */
  backupDirectory?: string;
}) {
  const directoryOf = (input: WorkspaceBackupInput) =>
    path.join(
      options.backupDirectory ?? workspaceStateDirectory(input.workspace, 'backups'),
      input.backupId.replace(/[^A-Za-z0-9._-]+/g, '_'),
    );

  return {
    async backupWorkspace(input: WorkspaceBackupInput): Promise<{ files: number }> {
      const target = directoryOf(input);
      await rm(target, { recursive: true, force: true });
      await mkdir(path.join(target, 'files'), { recursive: true });
      const files: string[] = [];
      let bytes = 0;
      for await (const file of walkFiles({ root: input.workspace })) {
        if (file.kind !== 'file') continue;
        if (files.length >= MAX_BACKUP_FILES || bytes + file.size > MAX_BACKUP_BYTES) {
          throw new Error(
            `workspace too large to back up (over ${MAX_BACKUP_FILES} files or ${MAX_BACKUP_BYTES} bytes)`,
          );
        }
        const destination = path.join(target, 'files', file.relative);
        await mkdir(path.dirname(destination), { recursive: true });
        // Read without following a link (it may have been swapped for one since it was listed).
        await writeFile(destination, await readRegularFile(file.path, MAX_BACKUP_BYTES - bytes));
        files.push(file.relative);
        bytes += file.size;
      }
      // The manifest is written last: a backup without one is incomplete and is not restored.
      await writeFile(path.join(target, 'manifest.json'), JSON.stringify({ files }));
      return { files: files.length };
    },

    async restoreWorkspace(input: WorkspaceBackupInput): Promise<{ restored: string[]; removed: string[] }> {
      const source = directoryOf(input);
      const manifest = JSON.parse(await readFile(path.join(source, 'manifest.json'), 'utf8')) as {
        files: string[];
      };
      const kept = new Set(manifest.files);
      const removed: string[] = [];
      for await (const file of walkFiles({ root: input.workspace })) {
        if (!kept.has(file.relative)) {
          await rm(file.path, { force: true });
          removed.push(file.relative);
        }
      }
      const restored: string[] = [];
      for (const relative of manifest.files) {
        const saved = await readFile(path.join(source, 'files', relative));
        // Written without following a link at any component: the model may have replaced a
        // directory with a link out of the workspace since the backup.
        const { file } = await openFileBeneath(input.workspace, segmentsOf(relative), 'write');
        try {
          if ((await file.readFile()).equals(saved)) continue;
          await file.truncate(0);
          await file.write(saved, 0, saved.length, 0);
        } finally {
          await file.close();
        }
        restored.push(relative);
      }
      await noteKeelWriteOn(input.workspace); // keel's write: not a change made outside it
      return { restored, removed };
    },
  };
}
