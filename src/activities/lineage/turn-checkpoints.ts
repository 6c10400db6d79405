/**
 * The turn checkpoint a changing call asks for (workflows/goal/lineage/turn-checkpoint.ts), taken
 * on the workspace's host before the call changes anything: the first such call of a turn takes
 * it, the others find it taken. Beside the workspace, never inside it (workspaceStateDirectory).
 */
import { workspaceStateDirectory } from '../hosts/workspace-state-directory';
import { takeCheckpoint } from '../checkpoints/checkpoint-store';

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
 * fork at that turn takes its files from the next checkpoint, as its ledger event says.
 */
export async function checkpointBeforeCall(
  workspace: string,
  request: TurnCheckpointRequest,
  log: { warn(message: string, attributes?: Record<string, unknown>): void },
): Promise<void> {
  try {
    await takeCheckpoint({
      store: checkpointStoreOf(workspace),
      goalId: request.key,
      workspace,
      turn: request.turn,
      retainTurns: request.retainTurns,
      retainForMs: request.retainForMs,
    });
  } catch (error) {
    log.warn(
      `turn ${request.turn} checkpoint not taken: ${error instanceof Error ? error.message : String(error)}`,
      {
        key: request.key,
      },
    );
  }
}
