import { randomUUID } from 'node:crypto';
import { link, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { HostClaimError } from './host-claim-error';

/**
 * The marker that says which host a workspace root's disk belongs to, and names the disk: a
 * replica (--replica) is accepted only when the marker it reads carries the disk id the live
 * workers of its host announce, which holds only when both machines see the same file.
 *
 * It sits in the root itself, beside the workspaces, never inside one: keel's tools see only
 * inside a goal's workspace, which lies under the root (like .keel-state, see
 * workspace-state-directory.ts), so no tool lists it.
 */
export const DISK_MARKER_NAME = '.keel-host.json';

const diskMarkerSchema = z.object({ hostId: z.string().min(1), diskId: z.string().min(1) });
export type DiskMarker = z.infer<typeof diskMarkerSchema>;

export function diskMarkerPath(workspaceRoot: string): string {
  return path.join(workspaceRoot, DISK_MARKER_NAME);
}

/** The root's marker, or undefined when it has none; one that names another host id is refused. */
export async function readDiskMarker(workspaceRoot: string, hostId: string): Promise<DiskMarker | undefined> {
  const file = diskMarkerPath(workspaceRoot);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new HostClaimError(`cannot read the host marker ${file}: ${(error as Error).message}`);
  }
  let parsed: DiskMarker;
  try {
    parsed = diskMarkerSchema.parse(JSON.parse(text));
  } catch {
    throw new HostClaimError(
      `the host marker ${file} is not {"hostId", "diskId"}: remove it and start again to make a new one`,
    );
  }
  if (parsed.hostId !== hostId)
    throw new HostClaimError(
      `workspace root ${workspaceRoot} belongs to host ${parsed.hostId} (marker ${file}), not ${hostId}: start with --host-id ${parsed.hostId}, or remove the marker if that disk is no longer ${parsed.hostId}'s`,
    );
  return parsed;
}

/**
 * The root's marker, made with a new disk id when there is none. Atomic: the whole file is
 * written aside and linked into place, which fails if another process linked its own first; the
 * one that won is read back, so every process of the disk ends up with the same id.
 */
export async function ensureDiskMarker(workspaceRoot: string, hostId: string): Promise<DiskMarker> {
  const existing = await readDiskMarker(workspaceRoot, hostId);
  if (existing !== undefined) return existing;
  const file = diskMarkerPath(workspaceRoot);
  const marker: DiskMarker = { hostId, diskId: randomUUID().slice(0, 8) };
  const aside = `${file}.${process.pid}.${randomUUID().slice(0, 8)}`;
  const cannotWrite = (error: unknown) =>
    // A root the worker cannot write (read-only, another user's): one line, not a stack.
    new HostClaimError(`cannot write the host marker ${file}: ${(error as Error).message}`);
  try {
    await writeFile(aside, `${JSON.stringify(marker)}\n`, { flag: 'wx' });
  } catch (error) {
    throw cannotWrite(error);
  }
  try {
    await link(aside, file);
    return marker;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw cannotWrite(error);
    const winner = await readDiskMarker(workspaceRoot, hostId);
    if (winner === undefined) throw new HostClaimError(`the host marker ${file} vanished while it was made`);
    return winner;
  } finally {
    await rm(aside, { force: true });
  }
}
