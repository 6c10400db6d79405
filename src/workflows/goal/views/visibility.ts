import * as wf from '@temporalio/workflow';
import type { ActivityProxies } from '../lifecycle/activity-proxies';
import { describeFailure } from '../lifecycle/failures';
import { renderGoalDetails } from './details';
import type { GoalState } from '../lifecycle/state';
import { detailsInput, searchAttributeValuesOf } from './status';
import { appendEvent, eventsAfter, type LedgerEventKind } from '../../common/ledger';
import { SearchAttributeUpserts } from './search-attribute-upserts';
import { TurnEvents } from './turn-events';
import { tellParent } from './child-approvals';

/**
 * What humans and listeners see of a goal: the ledger and its sinks, the Web UI's current
 * details, and the search attributes (upserted only when they change and, in runs that started
 * with the patch, at most once per workflow task: each upsert is an event; see
 * goal/views/search-attribute-upserts.ts).
 */
export class GoalVisibility {
  private publishing: Promise<unknown> = Promise.resolve();
  /** Constructed with the run, before any await: it decides its patch there. */
  private readonly searchAttributes: SearchAttributeUpserts;
  /** The turn's answer and calls, for the live event stream (views/turn-events.ts). */
  private readonly turnEvents: TurnEvents;

  constructor(
    private readonly state: GoalState,
    private readonly workflowId: string,
    private readonly ledgerActivities: ActivityProxies['ledger'],
  ) {
    this.searchAttributes = new SearchAttributeUpserts(() => searchAttributeValuesOf(this.state));
    this.turnEvents = new TurnEvents(state);
  }

  /**
   * Writes the search attributes still pending, then hands every unpublished event to the sinks
   * and waits: before closing or continuing as new.
   */
  async flush(): Promise<void> {
    this.observeTurn();
    this.searchAttributes.flush();
    this.publishLedger();
    await this.publishing;
  }

  /** Runs a local activity: a pending search attribute write waits for its result. */
  duringLocalActivity<T>(run: () => Promise<T>): Promise<T> {
    return this.searchAttributes.duringLocalActivity(run);
  }

  record(kind: LedgerEventKind, summary: string, data: Record<string, unknown>): void {
    // What the turn did comes first: the answer and results this event follows from.
    this.observeTurn();
    this.append({ kind, summary, data });
  }

  private append(event: { kind: LedgerEventKind; summary: string; data?: Record<string, unknown> }): void {
    this.state.ledger = appendEvent(
      this.state.ledger,
      { at: new Date().toISOString(), ...event },
      { maxEvents: this.state.config.ledger.maxEvents },
    );
  }

  /** Records the turn's answer and calls seen since the last look (views/turn-events.ts). */
  private observeTurn(): void {
    for (const event of this.turnEvents.take()) this.append(event);
  }

  /**
   * Hands new ledger events to the sinks as an activity the loop does not wait for, so a slow
   * listener never blocks the goal; batches go out one after another, in order.
   */
  private publishLedger(): void {
    if (!this.state.workerDefaults.ledgerSinks) return;
    const events = eventsAfter(this.state.ledger, this.state.ledgerPublishedThrough);
    const last = events[events.length - 1];
    if (!last) return;
    this.state.ledgerPublishedThrough = last.sequence;
    this.publishing = this.publishing
      .then(() => this.ledgerActivities.publishLedgerEvents({ workflowId: this.workflowId, events }))
      .catch((error: unknown) =>
        wf.log.warn('ledger events not delivered', { error: describeFailure(error) }),
      );
  }

  /**
   * This run hands the goal to a new one (continue-as-new). The closed run keeps its own search
   * attributes and details, so they must not say it still waits for anyone: its pending approvals
   * drop to 0 (the new run sets them again) and its details point to the next run.
   */
  handOver(nextRun: number): void {
    wf.setCurrentDetails(
      `### Continued as new\n\nThis run handed the goal to run ${nextRun}, with the same workflow id; look there for its status and pending approvals.`,
    );
    this.searchAttributes.close({ ...searchAttributeValuesOf(this.state), pendingApprovals: 0 });
  }

  /** Keeps what humans see current: Web UI details, search attributes, ledger listeners. */
  show(): void {
    this.observeTurn();
    wf.setCurrentDetails(
      renderGoalDetails(
        detailsInput(this.state, {
          workflowId: this.workflowId,
          nowMs: Date.now(),
          namespace: wf.workflowInfo().namespace,
        }),
      ),
    );
    this.searchAttributes.changed();
    this.publishLedger();
    tellParent(this.state, this.workflowId);
  }
}
