/**
 * Where the files of a turn are kept (issue 48): the workspace checkpoints lie beside the
 * workspace, on the host that took them. A goal that moved since the turn took them along only if
 * its move carried them (`keel rebind --carry`, activities/hosts/carry-workspace.ts); otherwise
 * they stayed on the host it left. Read from the histories' own events, without replaying: the
 * changing calls' inputs name their host, their path there and their checkpoint's label; a
 * carried move's pack says whether the checkpoints came along.
 */
import type { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow/data-converter-helpers';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow/codec-helpers';
import type { temporal } from '@temporalio/proto';

type History = temporal.api.history.v1.IHistory;

export interface CheckpointHome {
  /** The label of the first checkpoint taken at or after the turn: the one that holds its files. */
  turn: number;
  /** The host that has it (absent: the goal is bound to no host). */
  host?: string;
  /** The workspace's path on that host. */
  workspace: string;
}

/**
 * The latest host that holds the turn's checkpoint and every one before it: the host of the
 * first changing call from the turn on, followed through each move that carried its checkpoints,
 * up to the first move that did not. Undefined when no call changed the workspace since the turn
 * (its files are the workspace as it is). `histories`: the run holding the turn and every later one.
 */
export async function checkpointHome(
  converter: ReturnType<typeof loadDataConverter>,
  histories: readonly History[],
  turn: number,
  /** The checkpoint key of the turn's timeline (lineage.ts, checkpointKey). */
  key: string,
): Promise<CheckpointHome | undefined> {
  let home: CheckpointHome | undefined;
  /**
   * Whether every move since the home's last changing call took the checkpoints along (undefined:
   * no move). One that left them behind ends the trail, whatever later moves carried: a host that
   * never received them has none to pass on.
   */
  let carriedSince: boolean | undefined;
  const packs = new Set<string>();
  for (const history of histories) {
    for (const event of history.events ?? []) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      const name = scheduled?.activityType?.name;
      if (name === 'packWorkspace') packs.add(String(event.eventId));
      const completed = event.activityTaskCompletedEventAttributes;
      if (completed != null && packs.has(String(completed.scheduledEventId))) {
        const [pack] = await decodeArrayFromPayloads(converter, completed.result?.payloads);
        const carried = (pack as { checkpoints?: { carried?: boolean } }).checkpoints?.carried !== false;
        carriedSince = (carriedSince ?? true) && carried;
      }
      if (name !== 'executeTool') continue;
      const [input] = await decodeArrayFromPayloads(converter, scheduled?.input?.payloads);
      const call = input as {
        host?: string;
        workspace?: string;
        checkpoint?: { key?: string; turn?: number };
      };
      const label = call.checkpoint?.turn;
      if (label === undefined || call.workspace === undefined) continue;
      if (home === undefined) {
        // The first checkpoint of this timeline (its key) from the turn on holds the turn's files.
        if (call.checkpoint?.key === key && label >= turn)
          home = {
            turn: label,
            workspace: call.workspace,
            ...(call.host === undefined ? {} : { host: call.host }),
          };
      } else if (call.host !== home.host) {
        // Moved without them: the turn's checkpoints are where they were taken.
        if (carriedSince !== true) return home;
        home = {
          turn: home.turn,
          workspace: call.workspace,
          ...(call.host === undefined ? {} : { host: call.host }),
        };
      }
      carriedSince = undefined;
    }
  }
  return home;
}
