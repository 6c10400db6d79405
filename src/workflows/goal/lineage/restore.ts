/**
 * A fork's or a rewind's first step (issue 48): its files as they were at the turn it continues
 * from, on its workspace host, before the model is asked anything. Recorded once it is done, so
 * a worker lost midway repeats the restore (it makes the target equal again) and nothing else.
 */
import { LedgerEventKind } from '../../common/ledger';
import { bindingWorkspace } from '../../hosts/host-binding';
import type { GoalContext } from '../oversight/context';
import { lineageLine, type IrreversibleCall } from './lineage';
import { registerLineageUpdates, type RewindRequest } from './lineage-updates';

export class GoalLineage {
  constructor(
    private readonly goal: Pick<GoalContext, 'state' | 'workflowId' | 'record' | 'note' | 'onWorkspaceHost'>,
  ) {}

  /** The forkGoal and rewindGoal Updates (lineage-updates.ts). */
  registerUpdates(rewind: RewindRequest): void {
    registerLineageUpdates(this.goal, rewind);
  }

  async restoreIfPending(): Promise<void> {
    const { state } = this.goal;
    const lineage = state.lineage;
    if (lineage === undefined || lineage.restored !== undefined) return;
    const restored = await this.goal.onWorkspaceHost((workspace) =>
      workspace.restoreForkWorkspace({
        source: lineage.workspace.from,
        target: bindingWorkspace(state.host, state.config.workspace),
        key: lineage.checkpointKey,
        turn: lineage.turn,
        ...(lineage.checkpointTurn === undefined ? {} : { expectTurn: lineage.checkpointTurn }),
        // A rewind, or a fork written over its ended original's files: the workspace made equal.
        mode: lineage.workspace.to === lineage.workspace.from ? 'in-place' : 'new',
      }),
    );
    lineage.restored = restored;
    const waited =
      restored.waitedForCalls === undefined
        ? ''
        : `, once the ${restored.waitedForCalls} call(s) still running there had ended`;
    const files =
      restored.fromTurn === undefined
        ? `files as they were (no call changed them since that turn)${waited}`
        : `files from the checkpoint of turn ${restored.fromTurn} (${restored.written} written, ${restored.removed} removed)${waited}`;
    this.goal.record(
      lineage.kind === 'fork' ? LedgerEventKind.GoalForked : LedgerEventKind.GoalRewound,
      `${lineageLine(lineage)}; ${files}`,
      {
        of: lineage.of,
        turn: lineage.turn,
        ...(lineage.say === undefined ? {} : { say: lineage.say }),
        ...(lineage.by === undefined ? {} : { by: lineage.by }),
        workspace: lineage.workspace.to,
        restored,
        irreversibleAfter: lineage.irreversibleAfter,
      },
    );
    if (lineage.irreversibleAfter.length > 0) this.goal.note(irreversibleNote(lineage.irreversibleAfter));
  }
}

/** The model of a fork is told what its other timeline did that cannot be undone, so it does not repeat it unawares. */
export function irreversibleNote(calls: readonly IrreversibleCall[]): string {
  const lines = calls.map(
    (call) =>
      `- turn ${call.turn}: ${call.summary}${call.unknownOutcome === true ? ' (outcome unknown)' : ''}`,
  );
  return [
    'Note: this goal was taken back to an earlier turn. Before that, these irreversible calls were made; they were not undone, and repeating one needs a human again:',
    ...lines,
  ].join('\n');
}
