import { createHash, randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
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
      const entries: Entry[] = [];
      let rawBytes = 0;
      for await (const entry of walk(input.workspace, '')) {
        if (entry.kind === 'file') rawBytes += entry.data.length;
        // Checked as it goes: a huge workspace is refused before it fills the memory.
        if (rawBytes > limits.limitBytes * 20)
          throw refused(tooLarge(input.workspace, rawBytes, limits.limitBytes));
        entries.push(entry.kind === 'file' ? { ...entry, data: entry.data.toString('base64') } : entry);
      }
      const pack = gzipSync(Buffer.from(JSON.stringify(entries)));
      if (pack.length > limits.limitBytes)
        throw refused(tooLarge(input.workspace, pack.length, limits.limitBytes));
      const target = packPath(input.workspace, input.packId);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, pack);
      return {
        packId: input.packId,
        bytes: pack.length,
        chunks: Math.max(1, Math.ceil(pack.length / CARRY_CHUNK_BYTES)),
        digest: createHash('sha256').update(pack).digest('hex'),
        files: entries.filter((entry) => entry.kind === 'file').length,
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
      const entries = z.array(entrySchema).parse(JSON.parse(gunzipSync(pack).toString('utf8')));
      const staging = path.join(
        workspaceStateRoot(input.workspace),
        `carry-${randomBytes(4).toString('hex')}`,
      );
      await mkdir(staging, { recursive: true });
      try {
        const links = new Set<string>();
        for (const entry of entries) await restore(staging, entry, links);
        await rename(staging, input.workspace);
      } catch (error) {
        await rm(staging, { recursive: true, force: true });
        throw error;
      }
      await rm(source, { force: true });
      return { files: entries.filter((entry) => entry.kind === 'file').length };
    },

    /** On the old host, after the move: the pack is no longer needed there. */
    async dropPack(raw: z.input<typeof packWorkspaceInputSchema>): Promise<void> {
      const input = parseHostActivityInput(packWorkspaceInputSchema, raw, 'dropPack');
      await rm(packPath(input.workspace, input.packId), { force: true });
    },
  };
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
      await mkdir(target, { recursive: true, mode: entry.mode });
      return;
    case 'file':
      await writeFile(target, Buffer.from(entry.data, 'base64'), { mode: entry.mode });
      return;
    case 'symlink':
      await symlink(entry.target, target);
      links.add(relative);
      return;
  }
}
