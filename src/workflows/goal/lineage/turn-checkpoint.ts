/**
 * What a mutating call asks its worker to keep before it runs (issue 48): the workspace as it is
 * when the call's turn begins its changes, labelled with that model turn, under the goal's
 * checkpoint key. The worker takes it once per turn, before the first of the turn's changing
 * calls (activities/lineage/turn-checkpoints.ts); a read-only call changes nothing and asks for none.
 */
import type { GoalState, ToolCallRecord } from '../lifecycle/state';
import { checkpointKey } from './lineage';

export interface TurnCheckpointInput {
  checkpoint?: { key: string; turn: number; retainTurns?: number; retainForMs?: number };
}

export function turnCheckpoint(
  state: GoalState,
  workflowId: string,
  call: Pick<ToolCallRecord, 'reversibility'>,
): TurnCheckpointInput {
  const settings = state.config.checkpoints;
  if (call.reversibility === 'read-only' || settings?.enabled === false) return {};
  return {
    checkpoint: {
      key: checkpointKey(state, workflowId),
      turn: Math.max(1, state.counters.modelTurns),
      ...(settings?.retainTurns === undefined ? {} : { retainTurns: settings.retainTurns }),
      ...(settings?.retainForMs === undefined ? {} : { retainForMs: settings.retainForMs }),
    },
  };
}
