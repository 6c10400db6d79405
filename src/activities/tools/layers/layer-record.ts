import { createHash } from 'node:crypto';
import { chmod, lstat, mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { workspaceStateDirectory } from '../../hosts/workspace-state-directory';
import { toolOutcomeSchema } from '../../../workflows/tools/tool-outcome';
import type { LayerDirectories } from '../sandbox/layer-launcher';
import { baselineEntrySchema, layerOperationSchema } from './layer-operations';

/**
 * Where one call's layer stands, kept beside it so a retried attempt (after a crash) and the
 * approval that follows a hold find it:
 * - `running`: the command ran or was running; nothing reached the workspace (a retry starts over);
 * - `held`: waiting for a human, with the outcome the model gets if they approve;
 * - `applying`: the operations are being carried out (a retry finishes them);
 * - `applied` / `discarded`: done; the outcome is the call's answer to any retry.
 */
export const LAYER_RECORD_VERSION = 1;
export const layerRecordSchema = z.object({
  version: z.literal(LAYER_RECORD_VERSION),
  state: z.enum(['running', 'held', 'applying', 'applied', 'discarded']),
  updatedAt: z.string(),
  operations: z.array(layerOperationSchema).default([]),
  baseline: z.array(baselineEntrySchema).default([]),
  /** The result of the call as the model reads it once its changes are applied (or discarded). */
  outcome: toolOutcomeSchema.optional(),
  /** While held: the escalation the call answered with (its answer again to a retried attempt). */
  held: toolOutcomeSchema.optional(),
});
export type LayerRecord = z.infer<typeof layerRecordSchema>;

/** Records older than this are removed: their calls ended long ago. */
const RECORD_RETENTION_MILLISECONDS = 7 * 24 * 60 * 60 * 1000;
const PRUNE_INTERVAL_MILLISECONDS = 60 * 60 * 1000;
const lastPruned = new Map<string, number>();

/** One call's layer: its directories and its record, under `<parent>/.keel-state/<name>/layers/`. */
export class CallLayer {
  readonly directories: LayerDirectories;
  private readonly recordPath: string;

  constructor(
    readonly workspace: string,
    callKey: string,
  ) {
    const root = path.join(
      workspaceStateDirectory(workspace, 'layers'),
      createHash('sha256').update(callKey).digest('hex').slice(0, 32),
    );
    this.directories = {
      root,
      lower: path.join(root, 'lower'),
      upper: path.join(root, 'upper'),
      work: path.join(root, 'work'),
      merged: path.join(root, 'merged'),
    };
    this.recordPath = path.join(root, 'record.json');
  }

  async read(): Promise<LayerRecord | undefined> {
    try {
      const parsed = layerRecordSchema.safeParse(JSON.parse(await readFile(this.recordPath, 'utf8')));
      return parsed.success ? parsed.data : undefined;
    } catch {
      return undefined;
    }
  }

  /** Written aside and renamed into place: a reader never sees half a record. */
  async write(record: Omit<LayerRecord, 'version' | 'updatedAt'>): Promise<void> {
    const full: LayerRecord = {
      version: LAYER_RECORD_VERSION,
      updatedAt: new Date().toISOString(),
      ...record,
    };
    const temporary = `${this.recordPath}.${process.pid}.tmp`;
    await mkdir(this.directories.root, { recursive: true });
    await writeFile(temporary, JSON.stringify(full));
    await rename(temporary, this.recordPath);
  }

  /** Fresh, empty directories for a run (whatever an earlier attempt left is dropped). */
  async prepare(): Promise<void> {
    await this.dropLayer();
    const { lower, upper, work, merged } = this.directories;
    for (const directory of [lower, upper, work, merged]) await mkdir(directory, { recursive: true });
    void pruneOldRecords(path.dirname(this.directories.root));
  }

  /** Removes everything of this call's layer, its record too. */
  async forget(): Promise<void> {
    await removeForcing(this.directories.root);
  }

  /** Removes the layer's directories, keeping the record (the call's answer to a retry). */
  async dropLayer(): Promise<void> {
    const { lower, upper, work, merged } = this.directories;
    for (const directory of [lower, upper, work, merged]) await removeForcing(directory);
  }
}

/** At most hourly per layers directory: records of calls that ended a week ago go. */
async function pruneOldRecords(layersDirectory: string): Promise<void> {
  const now = Date.now();
  if (now - (lastPruned.get(layersDirectory) ?? 0) < PRUNE_INTERVAL_MILLISECONDS) return;
  lastPruned.set(layersDirectory, now);
  try {
    for (const name of await readdir(layersDirectory)) {
      const root = path.join(layersDirectory, name);
      const info = await stat(path.join(root, 'record.json')).catch(() => stat(root));
      if (now - info.mtimeMs > RECORD_RETENTION_MILLISECONDS) {
        await removeForcing(root);
      }
    }
  } catch {
    // Best effort: a directory that cannot be listed or removed is tried again next hour.
  }
}

/**
 * rm -rf that also removes what its owner made unreadable: overlayfs leaves work/work with mode
 * 000, and a command may chmod 000 a directory of its layer. The worker owns all of it, so it
 * opens such directories up (u+rwx) and tries again.
 */
export async function removeForcing(target: string): Promise<void> {
  try {
    await rm(target, { recursive: true, force: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'EACCES' && code !== 'EPERM' && code !== 'ENOTEMPTY') throw error;
    await openUp(target);
    await rm(target, { recursive: true, force: true });
  }
}

async function openUp(directory: string): Promise<void> {
  const info = await lstat(directory).catch(() => undefined);
  if (!info?.isDirectory()) return;
  await chmod(directory, 0o700).catch(() => undefined);
  for (const name of await readdir(directory).catch(() => [])) await openUp(path.join(directory, name));
}
