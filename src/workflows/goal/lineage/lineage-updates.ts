/**
 * The forkGoal and rewindGoal Updates (issue 48): the goal's worker plans what `keel fork` and
 * `keel rewind` plan on a client (activities/lineage/plan-fork-activity.ts), on the goal's
 * workspace host. A fork is started there and answered with its id. A rewind hands the planned
 * state to the goal's run, which ends where it waits and continues as new from that state
 * (workflow.ts): the new run restores the files in place first, as after `keel rewind`.
 */
import * as wf from '@temporalio/workflow';
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import { FailureType } from '../../common/failure-types';
import { LedgerEventKind } from '../../common/ledger';
import type { GoalContext } from '../oversight/context';
import type { IrreversibleCall } from './lineage';
import {
  forkGoalUpdate,
  forkPayloadSchema,
  LINEAGE_DESCRIPTIONS,
  REWIND_NOT_ACKNOWLEDGED,
  rewindGoalUpdate,
  rewindPayloadSchema,
} from './lineage-messages';

/** The state a rewind continues from, once its Update has planned it; the run then ends. */
export class RewindRequest {
  carried: unknown;
  private whenRequested: (() => void) | undefined;

  get requested(): boolean {
    return this.carried !== undefined;
  }

  /** What ends the run (its cancellation scope) when a rewind is asked for. */
  onRequest(end: () => void): void {
    this.whenRequested = end;
  }

  request(carried: unknown): void {
    this.carried = carried;
    this.whenRequested?.();
  }
}

export function registerLineageUpdates(
  goal: Pick<GoalContext, 'state' | 'workflowId' | 'record' | 'onWorkspaceHost'>,
  rewind: RewindRequest,
): void {
  const { workflowId } = goal;
  /** The client's planning, on the goal's workspace host, for this goal on its own task queue. */
  const plan = (request: {
    kind: 'fork' | 'rewind';
    turn: number;
    say: string | undefined;
    by: string;
    forkId: string;
    workspace?: string;
  }) => {
    const { say, ...rest } = request;
    return refusedInWords(() =>
      goal.onWorkspaceHost((workspace) =>
        workspace.planGoalFork({
          ...rest,
          ...(say === undefined ? {} : { say }),
          workflowId,
          taskQueue: wf.workflowInfo().taskQueue,
        }),
      ),
    );
  };
  wf.setHandler(
    forkGoalUpdate,
    async (raw) => {
      const payload = forkPayloadSchema.parse(raw);
      const forkId = payload.id ?? `${workflowId}-fork-t${payload.atTurn}-${wf.uuid4().slice(0, 6)}`;
      const planned = await plan({
        kind: 'fork',
        turn: payload.atTurn,
        say: payload.say,
        by: payload.by,
        forkId,
        ...(payload.workspace === undefined ? {} : { workspace: payload.workspace }),
      });
      const { workspace, irreversibleAfter } = planned.lineage;
      goal.record(
        LedgerEventKind.ForkStarted,
        `forked at turn ${payload.atTurn} as ${forkId} by ${payload.by}, workspace ${workspace.to}`,
        { forkId, turn: payload.atTurn, workspace: workspace.to, by: payload.by },
      );
      return { forkId, turn: payload.atTurn, workspace: workspace.to, irreversibleAfter };
    },
    { description: LINEAGE_DESCRIPTIONS.forkGoal, validator: validatorOf(forkPayloadSchema, goal) },
  );
  wf.setHandler(
    rewindGoalUpdate,
    async (raw) => {
      const payload = rewindPayloadSchema.parse(raw);
      const planned = await plan({
        kind: 'rewind',
        turn: payload.toTurn,
        say: payload.say,
        by: payload.by,
        forkId: workflowId,
      });
      const { irreversibleAfter, workspace } = planned.lineage;
      if (irreversibleAfter.length > 0 && payload.acknowledgeIrreversible !== true)
        throw ApplicationFailure.create({
          message: notAcknowledged(payload.toTurn, irreversibleAfter),
          type: REWIND_NOT_ACKNOWLEDGED,
          nonRetryable: true,
          details: [irreversibleAfter],
        });
      if (rewind.requested)
        throw ApplicationFailure.nonRetryable('a rewind is already under way', FailureType.ForkRefused);
      goal.record(
        LedgerEventKind.RewindRequested,
        `rewinding to turn ${payload.toTurn} by ${payload.by}: this run ends, and a new one goes on from there`,
        { turn: payload.toTurn, by: payload.by, irreversibleAfter },
      );
      rewind.request(planned.carried);
      return { turn: payload.toTurn, workspace: workspace.to, irreversibleAfter };
    },
    {
      description: LINEAGE_DESCRIPTIONS.rewindGoal,
      validator: (raw) => {
        validatorOf(rewindPayloadSchema, goal)(raw);
        if (rewind.requested) throw new Error('a rewind is already under way');
      },
    },
  );
}

/**
 * Refused before anything is written to history: a malformed request, or a turn the goal has not
 * begun yet (turns are counted across its runs; the planning activity judges the rest).
 */
function validatorOf(
  schema: typeof forkPayloadSchema | typeof rewindPayloadSchema,
  goal: Pick<GoalContext, 'state' | 'workflowId'>,
) {
  return (raw: unknown): void => {
    const parsed = schema.safeParse(raw);
    if (!parsed.success) throw new Error(`invalid request: ${parsed.error.issues[0]?.message ?? ''}`);
    const turn = 'atTurn' in parsed.data ? parsed.data.atTurn : parsed.data.toTurn;
    const begun = goal.state.counters.modelTurns;
    if (turn > begun)
      throw new Error(`${goal.workflowId} has begun ${begun} turn(s); there is no turn ${turn} yet`);
  };
}

/** A refusal of the planning activity (no such turn, a workspace it may not use) as the Update's own. */
async function refusedInWords<T>(plan: () => Promise<T>): Promise<T> {
  try {
    return await plan();
  } catch (error) {
    const cause = error instanceof ActivityFailure ? error.cause : undefined;
    if (cause instanceof ApplicationFailure && cause.type === FailureType.ForkRefused)
      throw ApplicationFailure.nonRetryable(cause.message, FailureType.ForkRefused);
    throw error;
  }
}

function notAcknowledged(turn: number, calls: readonly IrreversibleCall[]): string {
  const listed = calls.map((call) => `turn ${call.turn} ${call.callId}: ${call.summary}`).join('; ');
  return `not rewound: ${calls.length} irreversible call(s) since turn ${turn}, which a rewind does not undo (${listed}); send acknowledgeIrreversible: true to go back anyway`;
}
