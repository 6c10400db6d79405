/**
 * Continue-as-new: when a goal hands its run over to a new one (history-limits.ts decides when),
 * and the handover itself. The state travels whole, with the ledger still to publish and the
 * last model request, so the new run goes on where this one stopped.
 */
import * as wf from '@temporalio/workflow';
import { LedgerEventKind } from '../../common/ledger';
import type { CarriedModelRequest } from '../model-turn/carried-request';
import type { GoalVisibility } from '../views/visibility';
import { timeForNewRun, timeToHandOverParkedTurn } from './history-limits';
import type { GoalInput } from './input';
import type { GoalResult } from './result';
import type { GoalState } from './state';

/** The goal workflow's signature, which the new run is started with. */
type GoalWorkflowFunction = (input: GoalInput, carried?: unknown) => Promise<GoalResult>;

export class GoalHandover {
  constructor(
    private readonly goal: {
      readonly state: GoalState;
      readonly visibility: GoalVisibility;
      /** The last model request, carried so the next turn can reuse its cached prefix. */
      carriedRequest(): CarriedModelRequest | undefined;
    },
  ) {}

  /** Temporal suggests a new run (or the history is near its limits). */
  timeForNewRun(): boolean {
    return timeForNewRun(wf.workflowInfo());
  }

  /** A turn parked on approvals hands over earlier, so a long wait never nears the limits. */
  timeToHandOverParkedTurn(): boolean {
    return timeToHandOverParkedTurn(wf.workflowInfo());
  }

  /** At a turn boundary: hands over when it is time. */
  async ifSuggested(): Promise<void> {
    if (this.timeForNewRun()) await this.continueAsNew();
  }

  /**
   * Hands the goal to a new run. The ledger reaches its listeners and running handlers finish
   * first; those awaits let other work move, so `stillValid` is asked again at the last moment
   * (mid-turn: no call may have started meanwhile) and, when it says no, this run goes on.
   */
  async continueAsNew(stillValid: () => boolean = () => true): Promise<void> {
    const { state, visibility } = this.goal;
    await visibility.flush();
    // Handlers still running would be cut off by the new run; let them finish first.
    await wf.condition(wf.allHandlersFinished);
    if (!stillValid()) return;
    state.continuedAsNew += 1;
    // Published by the new run: the ledger travels with the state.
    visibility.record(
      LedgerEventKind.GoalContinuedAsNew,
      `continued as new (run ${state.continuedAsNew + 1})`,
      {},
    );
    visibility.handOver(state.continuedAsNew + 1);
    const lastRequest = this.goal.carriedRequest();
    await wf.continueAsNew<GoalWorkflowFunction>(state.config, {
      ...state,
      ...(lastRequest === undefined ? {} : { lastRequest }),
    });
  }
}
