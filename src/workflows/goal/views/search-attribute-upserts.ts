import * as wf from '@temporalio/workflow';
import {
  changedFields,
  dueFields,
  searchAttributeUpdatesOf,
  searchAttributeValuesFrom,
  type SearchAttributeField,
  type SearchAttributeValues,
} from './search-attribute-values';

/**
 * Checks of blocked conditions a write waits for. The first can be the check the SDK makes right
 * after an activation job, before the code that job woke has run (a signal handler that showed a
 * change); the second is asked for from the first's continuation, so it can only be a check made
 * once the workflow's microtasks ran dry: every lane woken by the activation has reached its next
 * await by then.
 */
const SETTLING_CHECKS = 2;

/**
 * keel's search attributes, written only when a value changed: each upsert is a history event.
 *
 * They are written at most once per workflow task: `changed()` only
 * marks the values as pending, and one write carries what changed once the task's work has
 * settled. TS SDK 1.24 has no public hook that runs before an activation completes (internals
 * interceptors see the commands only after they were collected), so "settled" is built from
 * wf.condition: the SDK re-checks blocked conditions after each activation job and every time the
 * workflow's microtasks run out, and stops when none unblocks. A write that waits for
 * SETTLING_CHECKS such checks runs after any fixed chain of microtasks would, and after the code
 * the activation's jobs woke; code that a later check wakes and that changes a value again costs
 * one more upsert, never a lost value. It also waits while a local activity runs: the task stays
 * open and the result comes in another activation of the same task (a read runs, then the model
 * is asked again: "running-tools" then "thinking" were two events that nothing outside the task
 * could tell apart, since the server applies a task's commands together). A per-activation write
 * would have kept both.
 *
 * Replay: the write's timing depends only on workflow-visible events (job order, microtasks, local
 * activity results), never on where a task boundary falls, so a replay writes the same commands in
 * the same order.
 *
 * KeelToolCalls may lag (dueFields): a settled write carries it with another attribute's change,
 * or alone once it lags by TOOL_CALLS_REFRESH_STEP calls, so a turn of reads normally writes
 * nothing. The last writes of a run (flush, close) are exact.
 */
export class SearchAttributeUpserts {
  private published: Partial<SearchAttributeValues>;
  private pending = false;
  private closed = false;
  private localActivities = 0;

  constructor(private readonly current: () => SearchAttributeValues) {
    // Search attributes survive continue-as-new; start from what the run already carries.
    this.published = searchAttributeValuesFrom(wf.workflowInfo().typedSearchAttributes);
  }

  /** The values may have changed: written once the task's work settles. */
  changed(): void {
    if (this.pending || this.closed) return;
    if (dueFields(this.published, this.current()).length === 0) return;
    this.pending = true;
    void this.writeWhenSettled();
  }

  /**
   * Writes what changed at once, exactly (a lagging count too), before the workflow returns: a
   * write still waiting for the task to settle would come too late.
   */
  flush(): void {
    this.writeExactly(this.current());
  }

  /**
   * Writes every value that differs from what was written; the cost only with another (it never
   * makes a write of its own, so a run writes the upserts it wrote before the cost existed).
   */
  private writeExactly(values: SearchAttributeValues): void {
    const fields = changedFields(this.published, values);
    this.write(values, fields.every((field) => field === 'costUsd') ? [] : fields);
  }

  private write(values: SearchAttributeValues, fields: readonly SearchAttributeField[]): void {
    if (this.closed || fields.length === 0) return;
    wf.upsertSearchAttributes(searchAttributeUpdatesOf(fields, values));
    const written = Object.fromEntries(fields.map((field) => [field, values[field]]));
    this.published = { ...this.published, ...written };
  }

  /**
   * The last write of a run that continues as new, with `values` that may differ from the
   * state's: a write still pending must not follow the continue-as-new command.
   */
  close(values: SearchAttributeValues): void {
    this.writeExactly(values);
    this.closed = true;
  }

  /**
   * Runs a local activity; a pending write waits for its result (same workflow task). Returns the
   * activity's own promise, so the caller resumes exactly as it did before this was counted.
   */
  duringLocalActivity<T>(run: () => Promise<T>): Promise<T> {
    const result = run();
    this.localActivities += 1;
    const settled = () => {
      this.localActivities -= 1;
    };
    void result.then(settled, settled);
    return result;
  }

  private async writeWhenSettled(): Promise<void> {
    // Not cancellable: cancelling the goal must not turn the pending write into a rejection.
    await wf.CancellationScope.nonCancellable(async () => {
      for (let check = 0; check < SETTLING_CHECKS; check += 1) await this.nextConditionCheck();
    });
    this.pending = false;
    const values = this.current();
    this.write(values, dueFields(this.published, values));
  }

  /**
   * Resolves at the SDK's next check of blocked conditions made while no local activity runs.
   * `armed` is false during wf.condition's own first (eager) check, so it never resolves at once.
   */
  private nextConditionCheck(): Promise<void> {
    let armed = false;
    const checked = wf.condition(() => armed && this.localActivities === 0);
    armed = true;
    return checked;
  }
}
