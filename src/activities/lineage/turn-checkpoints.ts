/**
 * The turn checkpoint a changing call asks for (workflows/goal/lineage/turn-checkpoint.ts), taken
 * on the workspace's host before the call changes anything: the first such call of a turn takes
 * it, the others find it taken. Beside the workspace, never inside it (workspaceStateDirectory).
 */
import { workspaceStateDirectory } from '../hosts/workspace-state-directory';
import { takeCheckpoint } from '../checkpoints/checkpoint-store';
import { forgetKeelWrite, noteKeelWrite } from '../checkpoints/after-keel-calls';
import { callsCutOff } from '../tools/running-calls';
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
    await forgetNoteIfCallsCutOff(workspace, log);
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
 * A call whose worker was killed mid-call, or between its answer and the note of what it left,
 * left its marker (tools/running-calls.ts): what it changed was never noted as keel's. The next
 * checkpoint would report those changes as made outside keel, to the ledger and to the model; it
 * reports none instead, this once (the note is dropped, and keel's next write notes afresh).
 */
async function forgetNoteIfCallsCutOff(
  workspace: string,
  log: { warn(message: string, attributes?: Record<string, unknown>): void },
): Promise<void> {
  try {
    const cutOff = await callsCutOff(workspace);
    if (cutOff === 0) return;
    await forgetKeelWrite(checkpointStoreOf(workspace));
    log.warn(
      `${cutOff} call(s) on ${workspace} ended with their worker before what they changed was noted: ` +
        'changes made outside keel since its last noted write are not told apart this turn',
    );
  } catch (error) {
    log.warn(
      `calls cut off on ${workspace} not checked: ${error instanceof Error ? error.message : String(error)}`,
    );
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
 * checkpoint in this process waits for them (keelWritesNoted). `afterwards` runs once the note is
 * written: the call's running marker is removed only then, so a worker that stops in between
 * leaves the marker, and the next checkpoint knows the note is missing (forgetNoteIfCallsCutOff)
 * instead of counting that call's changes as made outside keel.
 */
export function noteKeelWriteSoon(
  workspace: string,
  log: { warn(message: string, attributes?: Record<string, unknown>): void },
  afterwards: () => Promise<void> = async () => {},
): void {
  const store = checkpointStoreOf(workspace);
  const next = (pendingNotes.get(store) ?? Promise.resolve())
    .then(() => noteKeelWriteOn(workspace, log))
    .then(afterwards)
    .catch((error: unknown) =>
      log.warn(
        `after noting keel's write to ${workspace}: ${error instanceof Error ? error.message : String(error)}`,
      ),
    );
  pendingNotes.set(store, next);
  void next.finally(() => {
    if (pendingNotes.get(store) === next) pendingNotes.delete(store);
  });
}

/** Resolves once this process's notes of keel's writes to the workspace are written. */
export async function keelWritesNoted(workspace: string): Promise<void> {
  await pendingNotes.get(checkpointStoreOf(workspace));
}
