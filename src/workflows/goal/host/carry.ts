import type { HostProxies } from '../lifecycle/activity-proxies';
import type { WorkspacePack } from '../../hosts/workspace-carry';

/**
 * A carried move's transfer (goal/host/binding.ts, carryTo): the old host packs the workspace, the
 * workflow carries the pack chunk by chunk to the new host (activity results and inputs, bounded:
 * workspace-carry.ts), which unpacks it at the goal's path there.
 */
export async function carryPack(options: {
  from: { id: string; carry: HostProxies['carry'] };
  to: { id: string; carry: HostProxies['carry'] };
  /** The workspace's path on the old host, and on the new one. */
  here: string;
  there: string;
  packId: string;
}): Promise<WorkspacePack> {
  const { from, to, here, there, packId } = options;
  const pack = await from.carry.packWorkspace.executeWithOptions(
    { summary: `pack the workspace on host ${from.id}` },
    [{ workspace: here, packId }],
  );
  for (let index = 0; index < pack.chunks; index += 1) {
    const chunk = await from.carry.readPackChunk({ workspace: here, packId, index });
    await to.carry.writePackChunk({ workspace: there, packId, index, data: chunk.data });
  }
  await to.carry.unpackWorkspace.executeWithOptions({ summary: `unpack the workspace on host ${to.id}` }, [
    { workspace: there, packId, bytes: pack.bytes, digest: pack.digest },
  ]);
  await from.carry.dropPack({ workspace: here, packId }).catch(() => undefined); // a leftover file, no more
  return pack;
}

/** What the ledger's host.rebound event says of a carried move. */
export function carriedFacts(pack: WorkspacePack): Record<string, unknown> {
  const { bytes, files, checkpoints } = pack;
  return { bytes, files, ...(checkpoints === undefined ? {} : { checkpoints }) };
}

/** Said in the move's summary when the turn checkpoints could not come along (issue 48). */
export function carriedNote(pack: WorkspacePack): string {
  return pack.checkpoints?.carried === false
    ? '; its turn checkpoints stayed on the old host (the pack would have been over the carry limit with them): forks and rewinds to turns before the move are planned there'
    : '';
}
