/**
 * The turn checkpoint a changing call asks for (workflows/goal/lineage/turn-checkpoint.ts), taken
 * on the workspace's host before the call changes anything: the first such call of a turn takes
 * it, the others find it taken. Beside the workspace, never inside it (workspaceStateDirectory).
 */
import { workspaceStateDirectory } from '../hosts/workspace-state-directory';
import { takeCheckpoint } from '../checkpoints/checkpoint-store';
import { noteKeelWrite } from '../checkpoints/after-keel-calls';
import { activityContextOrUndefined } from '../activity-context';

export interface TurnCheckpointRequest {
  key: string;
  turn: number;
  retainTurns?: number | undefined;
  retainForMs?: number | undefined;
}

export function checkpointStoreOf(workspace: string): string {
  return workspaceStateDirectory(workspace, 'checkpoints');
}

/**
 * A checkpoint that cannot be taken (a workspace over the store's bounds, a full disk) does not
 * stop the call: the goal's work matters more than a later fork's precision. It is logged, and a
 * fork at that turn is refused (CheckpointUnavailable) rather than given another turn's files.
 * The answer names the files changed outside keel since its last write, when the checkpoint saw any.
 */
export async function checkpointBeforeCall(
  workspace: string,
  request: TurnCheckpointRequest,
  log: { warn(message: string, attributes?: Record<string, unknown>): void },
): Promise<{ outside?: { count: number; paths: string[] } }> {
  try {
    await keelWritesNoted(workspace); // compared with what keel's last write left, not an older note
    const taken = await takeCheckpoint({
      store: checkpointStoreOf(workspace),
      goalId: request.key,
      workspace,
      turn: request.turn,
      retainTurns: request.retainTurns,
      retainForMs: request.retainForMs,
    });
    // Said once, by the call that took the checkpoint; the turn's other calls find it taken.
    return taken.taken && taken.outside !== undefined ? { outside: taken.outside } : {};
  } catch (error) {
    log.warn(
      `turn ${request.turn} checkpoint not taken: ${error instanceof Error ? error.message : String(error)}`,
      {
        key: request.key,
      },
    );
    return {};
  }
}

/**
 * After keel wrote the workspace (a changing call, held changes applied, a restore, a rollback, a
 * child's merge): what it left, so the next checkpoint tells changes made outside keel apart
 * (checkpoints/after-keel-calls.ts). Never fails the write it follows.
 */
export async function noteKeelWriteOn(
  workspace: string,
  log: { warn(message: string, attributes?: Record<string, unknown>): void } = activityContextOrUndefined()
    ?.log ?? console,
): Promise<void> {
  try {
    await noteKeelWrite(checkpointStoreOf(workspace), workspace);
  } catch (error) {
    log.warn(
      `keel's write to ${workspace} not noted: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** Notes under way in this process, by store: the next checkpoint there waits for them. */
const pendingNotes = new Map<string, Promise<void>>();

/**
 * noteKeelWriteOn after the call has answered: the walk (a few milliseconds) stays off the call's
 * own time, and the goal asks its model meanwhile. Notes of one store run in order, and the next
 * checkpoint in this process waits for them (keelWritesNoted). A worker that stops in between
 * leaves the earlier note: that call's changes would then be counted as made outside keel.
 */
export function noteKeelWriteSoon(
  workspace: string,
  log: { warn(message: string, attributes?: Record<string, unknown>): void },
): void {
  const store = checkpointStoreOf(workspace);
  const next = (pendingNotes.get(store) ?? Promise.resolve()).then(() => noteKeelWriteOn(workspace, log));
  pendingNotes.set(store, next);
  void next.finally(() => {
    if (pendingNotes.get(store) === next) pendingNotes.delete(store);
  });
}

/** Resolves once this process's notes of keel's writes to the workspace are written. */
export async function keelWritesNoted(workspace: string): Promise<void> {
  await pendingNotes.get(checkpointStoreOf(workspace));
}
