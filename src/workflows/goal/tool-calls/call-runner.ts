/**
 * Running one call as an activity: locally when it is a quick read on the goal's host, otherwise
 * on the host's queue (irreversible calls at most once), with an input and idempotency key that
 * stay stable across attempts. Separate from the lanes, which decide whether and when it runs.
 */
import * as wf from '@temporalio/workflow';
import type { KeelActivities } from '../../../activities';
import { LOCAL_READ_MAX_TIMEOUT_MS } from '../lifecycle/activity-proxies';
import { earlierAttemptOnAwayHost, isFailureOfType } from '../lifecycle/failures';
import { FailureType } from '../../common/failure-types';
import type { GoalState, ToolCallRecord } from '../lifecycle/state';
import type { ToolOutcome } from '../../tools/tool-outcome';
import type { catalogueEntry } from '../../tools/tool-catalogue';
import { attemptsElsewhere, type EarlierAttempt } from '../../tools/earlier-attempts';
import { idempotencyKeyOf } from './call-ids';
import { deniedEffectPaths } from './denied-effects-check';
import type { ToolCallsHost } from './tool-calls-host';

export type ExecuteToolInput = Parameters<KeelActivities['executeTool']>[0];

export class CallRunner {
  /**
   * A local read found this run's worker is not the goal's host: later reads go to the host's
   * queue at once. Derived from recorded results only, so it replays the same.
   */
  private localReadsMissHost = false;

  constructor(private readonly goal: ToolCallsHost) {}

  private get state(): GoalState {
    return this.goal.state;
  }

  /** The paths a human's denials cover, for a command's layer; absent when none (older inputs alike). */
  deniedEffectsInput(): { deniedEffects?: string[] } {
    const paths = deniedEffectPaths(this.state);
    return paths.length === 0 ? {} : { deniedEffects: paths };
  }

  /** Stable for every attempt of this call; see idempotencyKeyOf. */
  idempotencyKey(call: ToolCallRecord): string {
    return idempotencyKeyOf({
      workflowId: this.goal.workflowId,
      firstRunId: wf.workflowInfo().firstExecutionRunId,
      callId: call.callId,
    });
  }

  /**
   * A quick read runs locally when this worker is the goal's host (the activity checks and says
   * WrongHost otherwise); every other call goes to the host's queue, and waits there while the
   * host is away (goal/host/binding.ts).
   */
  async runCall(
    call: ToolCallRecord,
    entry: ReturnType<typeof catalogueEntry>,
    input: ExecuteToolInput,
  ): Promise<ToolOutcome> {
    const timeoutMs = entry?.timeoutMs;
    if (this.runsLocally(call, entry)) {
      try {
        return await this.goal.visibility.duringLocalActivity(() =>
          this.goal.activities
            .toolsWithTimeout(timeoutMs)
            .localReads.executeTool.executeWithOptions({ summary: call.summary }, [this.onHost(input)]),
        );
      } catch (error) {
        if (!isFailureOfType(error, FailureType.WrongHost)) throw error;
        this.localReadsMissHost = true;
      }
    }
    const irreversible = call.reversibility === 'irreversible';
    // Attempts on hosts the goal left: the host it moved to is told, and its journal decides
    // whether the call may run there (earlier-attempts.ts), as it does after a crash.
    const earlier: EarlierAttempt[] = [];
    return this.goal.host.run(
      (hostQueue) => {
        const proxies = this.goal.activities.toolsWithTimeout(timeoutMs, hostQueue);
        const tools = irreversible ? proxies.onceOnlyTools : proxies.tools;
        const elsewhere = attemptsElsewhere(earlier, this.goal.host.id);
        const onHost = this.onHost(input);
        return tools.executeTool.executeWithOptions(
          { summary: call.summary, priority: this.goal.model.priority() },
          [elsewhere.length === 0 ? onHost : { ...onHost, earlierAttempts: elsewhere }],
        );
      },
      (host, error) => {
        if (irreversible) earlier.push(earlierAttemptOnAwayHost(host, error));
      },
    );
  }

  /** The call's input naming the goal's host and its path there as they are now (a rebind moves them between attempts). */
  private onHost(input: ExecuteToolInput): ExecuteToolInput {
    const host = this.goal.host.id;
    // The workspace's path too: a move between hosts with different roots maps it.
    return host === undefined ? input : { ...input, host, workspace: this.goal.host.workspace };
  }

  /** Quick read-only calls run as local activities (see goal/lifecycle/activity-proxies.ts, localReads). */
  private runsLocally(call: ToolCallRecord, entry: ReturnType<typeof catalogueEntry>): boolean {
    if (this.localReadsMissHost) return false;
    if (call.reversibility !== 'read-only' || entry?.tier.kind !== 'fixed') return false;
    return (entry.timeoutMs ?? 0) <= LOCAL_READ_MAX_TIMEOUT_MS;
  }
}
