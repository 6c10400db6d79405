/**
 * A delegated child's own copy of the workspace (issue 47, workspace "copy"), on the goal's host:
 * made before the child starts, merged when it completed, dropped once it ended. The work is the
 * host's (activities/delegation/); a failure of it is said to the parent's model, never the
 * parent's failure.
 */
import * as wf from '@temporalio/workflow';
import type { KeelActivities } from '../../../activities';
import type { CopyEnding } from '../../delegation/merge-report';
import type { ToolCallsHost } from './tool-calls-host';

type CopyActivities = Pick<KeelActivities, 'copyWorkspaceForChild' | 'mergeChildCopy' | 'dropChildCopy'>;

export class ChildCopies {
  constructor(private readonly goal: ToolCallsHost) {}

  /** The copy's path for the child to work in, or why none could be made. */
  async make(childWorkflowId: string, folder?: string): Promise<{ copy: string } | { refused: string }> {
    try {
      const made = await this.onHost((host) =>
        host.copyWorkspaceForChild(this.inputOf(childWorkflowId, folder)),
      );
      return { copy: made.copy };
    } catch (error) {
      if (wf.isCancellation(error)) throw error;
      return { refused: causeOf(error) };
    }
  }

  /**
   * Merges a completed child's copy (a child that did not complete leaves nothing behind) and
   * drops it. A parent cancelled meanwhile still drops it: the copy would otherwise outlive both.
   */
  async end(childWorkflowId: string, completed: boolean, folder?: string): Promise<CopyEnding> {
    return wf.CancellationScope.nonCancellable(async () => {
      const input = this.inputOf(childWorkflowId, folder);
      let ending: CopyEnding = { kind: 'discarded' };
      if (completed) {
        try {
          ending = { kind: 'merged', outcome: await this.onHost((host) => host.mergeChildCopy(input)) };
        } catch (error) {
          ending = { kind: 'unmerged', why: causeOf(error) };
        }
      }
      await this.onHost((host) => host.dropChildCopy(input));
      return ending;
    });
  }

  /** The copy of the workspace on its host, or of one folder of it. */
  private inputOf(childWorkflowId: string, folder: string | undefined) {
    return {
      workspace: this.goal.host.workspace,
      childWorkflowId,
      ...(folder === undefined ? {} : { folder }),
    };
  }

  private onHost<T>(call: (activities: CopyActivities) => Promise<T>): Promise<T> {
    const { activities, host } = this.goal;
    return host.run((queue) =>
      call(queue === undefined ? activities.support : activities.onHost(queue).workspace),
    );
  }
}

/** The host's own words: an activity failure's cause is what the host said. */
function causeOf(error: unknown): string {
  if (error instanceof wf.ActivityFailure && error.cause) return error.cause.message;
  return error instanceof Error ? error.message : String(error);
}
