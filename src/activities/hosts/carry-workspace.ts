import { createHash, randomBytes } from 'node:crypto';
import { constants, existsSync } from 'node:fs';
import {
  lstat,
  mkdir,
  open,
  readFile,
  readdir,
  readlink,
  rename,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import path from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { FailureType } from '../../workflows/common/failure-types';
import { WorkspaceProbeState } from '../../workflows/hosts/host-queues';
import {
  CARRY_CHUNK_BYTES,
  CARRY_LIMIT_BYTES,
  type WorkspacePack,
} from '../../workflows/hosts/workspace-carry';
import { escapes } from '../tools/workspace';
import { parseHostActivityInput, workspacePathSchema } from './host-activity-input';
import { workspaceState, type HostIdentity } from './probe-workspace';
import { workspaceStateDirectory, workspaceStateRoot } from './workspace-state-directory';
import { noteKeelWriteOn } from '../lineage/turn-checkpoints';

/**
 * A goal moved while its old host is alive carries its workspace (issue 23): the old host packs
 * it into one compressed file beside the workspace, the workflow moves it chunk by chunk through
 * activity results (so no host needs to reach another), and the new host unpacks it at the
 * goal's path there. The pack travels through the goal's history, so it is bounded
 * (CARRY_LIMIT_BYTES); a bigger workspace is refused in one line.
 */

const packIdSchema = z.string().regex(/^[A-Za-z0-9._-]{1,200}$/, 'a pack id is letters, digits, . _ -');

export const packWorkspaceInputSchema = z
  .object({ workspace: workspacePathSchema, packId: packIdSchema })
  .strict();
export const readPackChunkInputSchema = z
  .object({ workspace: workspacePathSchema, packId: packIdSchema, index: z.number().int().nonnegative() })
  .strict();
export const writePackChunkInputSchema = z
  .object({
    workspace: workspacePathSchema,
    packId: packIdSchema,
    index: z.number().int().nonnegative(),
    data: z.string(),
  })
  .strict();
export const unpackWorkspaceInputSchema = z
  .object({
    workspace: workspacePathSchema,
    packId: packIdSchema,
    bytes: z.number().int(),
    digest: z.string(),
  })
  .strict();

const entrySchema = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('directory'), path: z.string(), mode: z.number().int() }),
  z.object({ kind: z.literal('file'), path: z.string(), mode: z.number().int(), data: z.string() }),
  z.object({ kind: z.literal('symlink'), path: z.string(), target: z.string() }),
]);
type Entry = z.infer<typeof entrySchema>;

/**
 * What a pack holds: the workspace's entries and, beside them, those of its checkpoint store
 * (issue 48), unpacked into the new host's state directory for that workspace. A pack of an
 * earlier keel is the workspace's entries alone.
 */
const packSchema = z.union([
  z.array(entrySchema).transform((workspace) => ({ workspace, checkpoints: [] as Entry[] })),
  z.object({ format: z.literal(2), workspace: z.array(entrySchema), checkpoints: z.array(entrySchema) }),
]);

export function createCarryWorkspaceActivities(
  host: HostIdentity,
  limits = { limitBytes: CARRY_LIMIT_BYTES },
) {
  const packPath = (workspace: string, packId: string) =>
    path.join(workspaceStateDirectory(workspace, 'carry'), `${packId}.pack`);
  const refused = (message: string) =>
    ApplicationFailure.nonRetryable(`host ${host.hostId}: ${message}`, FailureType.WorkspaceUnpreparable);

  return {
    /** On the old host: packs the workspace; refuses one whose pack exceeds the limit. */
    async packWorkspace(raw: z.input<typeof packWorkspaceInputSchema>): Promise<WorkspacePack> {
      const input = parseHostActivityInput(packWorkspaceInputSchema, raw, 'packWorkspace');
      const budget = { rawBytes: 0 };
      const bound = { limitBytes: limits.limitBytes, refused };
      const workspace = await entriesOf(input.workspace, budget, bound);
      const store = workspaceStateDirectory(input.workspace, 'checkpoints');
      const checkpoints = existsSync(store) ? await entriesOf(store, budget, bound) : [];
      const packed = (withCheckpoints: boolean) =>
        gzipSync(
          Buffer.from(
            JSON.stringify({ format: 2, workspace, checkpoints: withCheckpoints ? checkpoints : [] }),
          ),
        );
      let pack = packed(true);
      // Over the limit with them, the checkpoints stay behind: the move matters more than forks of the past.
      const carried = checkpoints.length === 0 || pack.length <= limits.limitBytes;
      if (!carried) pack = packed(false);
      if (pack.length > limits.limitBytes)
        throw refused(tooLarge(input.workspace, pack.length, limits.limitBytes));
      const target = packPath(input.workspace, input.packId);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, pack);
      const filesIn = (entries: Entry[]) => entries.filter((entry) => entry.kind === 'file').length;
      return {
        packId: input.packId,
        bytes: pack.length,
        chunks: Math.max(1, Math.ceil(pack.length / CARRY_CHUNK_BYTES)),
        digest: createHash('sha256').update(pack).digest('hex'),
        files: filesIn(workspace),
        ...(checkpoints.length === 0 ? {} : { checkpoints: { carried, files: filesIn(checkpoints) } }),
      };
    },

    /** On the old host: one chunk of the pack, base64. */
    async readPackChunk(raw: z.input<typeof readPackChunkInputSchema>): Promise<{ data: string }> {
      const input = parseHostActivityInput(readPackChunkInputSchema, raw, 'readPackChunk');
      const pack = await readFile(packPath(input.workspace, input.packId));
      const start = input.index * CARRY_CHUNK_BYTES;
      return { data: pack.subarray(start, start + CARRY_CHUNK_BYTES).toString('base64') };
    },

    /** On the new host: writes one chunk at its place (idempotent, so a retry does no harm). */
    async writePackChunk(raw: z.input<typeof writePackChunkInputSchema>): Promise<void> {
      const input = parseHostActivityInput(writePackChunkInputSchema, raw, 'writePackChunk');
      const target = packPath(input.workspace, input.packId);
      await mkdir(path.dirname(target), { recursive: true });
      // Read-write and created if missing, not append: a chunk goes to its offset, whatever came first.
      const file = await open(target, constants.O_RDWR | constants.O_CREAT);
      try {
        const data = Buffer.from(input.data, 'base64');
        await file.write(data, 0, data.length, input.index * CARRY_CHUNK_BYTES);
      } finally {
        await file.close();
      }
    },

    /**
     * On the new host: checks the pack whole and unpacks it into a staging directory beside the
     * workspace, then renames it into place, so a cut-off unpack never leaves a half workspace.
     */
    async unpackWorkspace(raw: z.input<typeof unpackWorkspaceInputSchema>): Promise<{ files: number }> {
      const input = parseHostActivityInput(unpackWorkspaceInputSchema, raw, 'unpackWorkspace');
      const state = await workspaceState(input.workspace, host.workspaceRoots);
      if (state !== WorkspaceProbeState.Missing)
        throw refused(`cannot unpack the workspace at ${input.workspace}: it is ${state}`);
      const source = packPath(input.workspace, input.packId);
      const pack = (await readFile(source)).subarray(0, input.bytes);
      if (createHash('sha256').update(pack).digest('hex') !== input.digest)
        throw refused(`the carried workspace arrived damaged (its digest differs); nothing was unpacked`);
      const { workspace, checkpoints } = packSchema.parse(JSON.parse(gunzipSync(pack).toString('utf8')));
      // The checkpoints first: a retry after a cut-off unpack finds the workspace still missing
      // and does both again, and the store it writes replaces any left there by an earlier stay.
      if (checkpoints.length > 0)
        await unpackInto(workspaceStateDirectory(input.workspace, 'checkpoints'), checkpoints, {
          replace: true,
          stagingIn: workspaceStateRoot(input.workspace),
        });
      await unpackInto(input.workspace, workspace, {
        replace: false,
        stagingIn: workspaceStateRoot(input.workspace),
      });
      await rm(source, { force: true });
      // The files are new here (other inodes and times): what keel just wrote, not outside changes.
      await noteKeelWriteOn(input.workspace);
      return { files: workspace.filter((entry) => entry.kind === 'file').length };
    },

    /** On the old host, after the move: the pack is no longer needed there. */
    async dropPack(raw: z.input<typeof packWorkspaceInputSchema>): Promise<void> {
      const input = parseHostActivityInput(packWorkspaceInputSchema, raw, 'dropPack');
      await rm(packPath(input.workspace, input.packId), { force: true });
    },
  };
}

/** A folder's entries for a pack; the whole pack's raw bytes are bounded as they are read. */
async function entriesOf(
  root: string,
  budget: { rawBytes: number },
  bound: { limitBytes: number; refused: (message: string) => Error },
): Promise<Entry[]> {
  const entries: Entry[] = [];
  for await (const entry of walk(root, '')) {
    if (entry.kind === 'file') budget.rawBytes += entry.data.length;
    // Checked as it goes: a huge workspace is refused before it fills the memory.
    if (budget.rawBytes > bound.limitBytes * 20)
      throw bound.refused(tooLarge(root, budget.rawBytes, bound.limitBytes));
    entries.push(entry.kind === 'file' ? { ...entry, data: entry.data.toString('base64') } : entry);
  }
  return entries;
}

/**
 * Unpacks entries into a staging directory beside `target` and renames it into place, so a
 * cut-off unpack never leaves a half folder; `replace` removes what is at `target` first.
 */
async function unpackInto(
  target: string,
  entries: Entry[],
  options: { replace: boolean; stagingIn: string },
): Promise<void> {
  const staging = path.join(options.stagingIn, `carry-${randomBytes(4).toString('hex')}`);
  await mkdir(staging, { recursive: true });
  try {
    const links = new Set<string>();
    for (const entry of entries) await restore(staging, entry, links);
    if (options.replace) await rm(target, { recursive: true, force: true });
    await rename(staging, target);
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    throw error;
  }
}

function tooLarge(workspace: string, bytes: number, limit: number): string {
  return `the workspace ${workspace} packs to ${megabytes(bytes)} MB or more, above the ${megabytes(limit)} MB a move can carry through the goal's history; copy it to the new host yourself (the same path under its root) and rebind once the old host is stopped`;
}

function megabytes(bytes: number): string {
  return (bytes / (1024 * 1024)).toFixed(1);
}

/** Every entry under the workspace, parents first; links are kept as links, never followed. */
async function* walk(
  root: string,
  relative: string,
): AsyncGenerator<
  | { kind: 'directory'; path: string; mode: number }
  | { kind: 'file'; path: string; mode: number; data: Buffer }
  | { kind: 'symlink'; path: string; target: string }
> {
  const names = (await readdir(path.join(root, relative))).sort();
  for (const name of names) {
    const child = relative === '' ? name : `${relative}/${name}`;
    const full = path.join(root, child);
    const info = await lstat(full);
    if (info.isSymbolicLink()) yield { kind: 'symlink', path: child, target: await readlink(full) };
    else if (info.isDirectory()) {
      yield { kind: 'directory', path: child, mode: info.mode & 0o7777 };
      yield* walk(root, child);
    } else if (info.isFile())
      yield { kind: 'file', path: child, mode: info.mode & 0o7777, data: await readFile(full) };
    // Sockets, FIFOs and devices are not a workspace's content: left behind.
  }
}

async function restore(staging: string, entry: Entry, links: Set<string>): Promise<void> {
  // The pack came through history: every path must stay inside the staging directory, and none
  // may pass through a link the pack made (`a` → /etc, then `a/x`), which would write outside it.
  // keel's packer never writes such a pack; one written by hand into history is refused.
  const relative = path.normalize(entry.path);
  const throughLink = relative
    .split(path.sep)
    .slice(0, -1)
    .some((_, index, parts) => links.has(parts.slice(0, index + 1).join(path.sep)));
  if (escapes(relative) || throughLink || relative !== entry.path.split('/').join(path.sep))
    throw ApplicationFailure.nonRetryable(
      `the carried workspace names an unsafe path: ${entry.path}`,
      FailureType.WorkspaceUnpreparable,
    );
  const target = path.join(staging, relative);
  switch (entry.kind) {
    case 'directory':
      // Never setuid, setgid or sticky on the new host: a carried file keeps its permissions only.
      await mkdir(target, { recursive: true, mode: entry.mode & 0o777 });
      return;
    case 'file':
      await writeFile(target, Buffer.from(entry.data, 'base64'), { mode: entry.mode & 0o777 });
      return;
    case 'symlink':
      await symlink(entry.target, target);
      links.add(relative);
      return;
  }
}
