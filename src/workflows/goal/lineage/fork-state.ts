/**
 * The state a fork or a rewind starts from: the original's state as it was when model turn
 * `turn` was about to be asked (captured by replaying its history, fork-capture.ts), made into a
 * running goal of its own. Pure, so the client builds it and tests check it without a server.
 */
import { GoalPhase, GoalStatus, type GoalState } from '../lifecycle/state';
import type { Lineage } from './lineage';
import { hostTaskQueue } from '../../hosts/host-queues';

export interface ForkRequest {
  lineage: Omit<Lineage, 'restored'>;
  /** How long the original had run when the turn was captured: the fork's clock goes on from there. */
  elapsedMs: number;
  /** Now, on the client's clock. */
  nowMs: number;
  /** The task queue the new goal runs on: its host's queue is named after it. */
  taskQueue: string;
}

/** The captured state, as a goal that continues from it in its own workspace. */
export function forkedState(captured: GoalState, request: ForkRequest): GoalState {
  const { lineage } = request;
  const state = JSON.parse(JSON.stringify(captured)) as GoalState;
  state.status = GoalStatus.Running;
  state.phase = GoalPhase.Thinking;
  for (const ended of ['finalText', 'cutText', 'endReason', 'currentTurn'] as const) delete state[ended];
  // What belongs to the run it came from: its parent's view of it, its last request, a host it lost.
  for (const runBound of [
    'lastRequest',
    'childApprovals',
    'toldParent',
    'hostMissing',
    'lastIgnoredDecision',
    'contextMeasure',
  ] as const) {
    delete state[runBound];
  }
  state.config = { ...state.config, workspace: lineage.workspace.to };
  if (state.host !== undefined) {
    // Same host (the checkpoints are there); the new workspace is named by the input path.
    // The queue is named again: the replay that captured the state ran on a queue of its own.
    const { workspace: _moved, relative: _relative, unavailableSince: _away, ...binding } = state.host;
    state.host = { ...binding, queue: hostTaskQueue(request.taskQueue, binding.id) };
  }
  // Children running at the turn cannot be taken over: their results never come to the fork.
  if (state.delegations !== undefined) state.delegations = { ...state.delegations, running: [] };
  // A plan attempt's backup lies with the original's workspace: the fork cannot roll back to it.
  delete state.planning.snapshotId;
  state.continuedAsNew = 0;
  state.startedAtMs = request.nowMs - Math.max(0, request.elapsedMs);
  // The original's ledger comes along as the fork's past; its listeners already have it.
  state.ledgerPublishedThrough = state.ledger.events.at(-1)?.sequence ?? state.ledgerPublishedThrough;
  if (lineage.irreversibleAfter.length > 0) revokeIrreversibleAllows(state, lineage);
  if (lineage.say !== undefined && lineage.say.trim() !== '') state.inbox = [...state.inbox, lineage.say];
  state.lineage = { ...lineage };
  return state;
}

/**
 * The original made irreversible calls after the turn: repeating one needs a human again, so a
 * rule that approved irreversible calls by itself is revoked in the new goal (shown by `keel
 * rules`, added again by a person if wanted). Forbid rules and rules for other calls stay.
 */
function revokeIrreversibleAllows(state: GoalState, lineage: ForkRequest['lineage']): void {
  for (const rule of state.approvalRules?.rules ?? []) {
    if (rule.effect !== 'allow' || !rule.irreversible || rule.revoked !== undefined) continue;
    rule.revoked = {
      by: 'keel',
      at: lineage.at,
      reason: `${lineage.kind} at turn ${lineage.turn}: irreversible calls were made after it, and one made again needs a human`,
    };
  }
}
