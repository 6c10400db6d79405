/**
 * The human review of a goal's output (seed 002, `submitReview`): the goal waits for it, up to
 * the approval timeout, and the handlers accept a review only while it waits.
 */
import * as wf from '@temporalio/workflow';
import { LedgerEventKind } from '../../common/ledger';
import type { GoalState } from '../lifecycle/state';
import type { GoalVisibility } from '../views/visibility';
import type { Review } from './reflection';

export class HumanReviewWait {
  private awaiting = false;

  constructor(private readonly goal: { readonly state: GoalState; readonly visibility: GoalVisibility }) {}

  get isAwaiting(): boolean {
    return this.awaiting;
  }

  /** The goal ended: no review is awaited any more. */
  close(): void {
    this.awaiting = false;
  }

  async wait(): Promise<Review | undefined> {
    const { state, visibility } = this.goal;
    this.awaiting = true;
    visibility.record(LedgerEventKind.ReviewRequested, 'review requested: waiting for a human', {
      timeoutMs: state.config.limits.approvalTimeoutMs,
      update: 'submitReview',
    });
    visibility.show();
    await wf.condition(() => state.reflection.review !== undefined, state.config.limits.approvalTimeoutMs, {
      summary: 'review wait: the goal output',
    });
    this.awaiting = false;
    return state.reflection.review;
  }
}
