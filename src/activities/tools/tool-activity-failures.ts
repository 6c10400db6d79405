/**
 * The failures the tool activities throw (everything else comes back as a ToolOutcome): their
 * types, and the failures for an unknown outcome, a call on the wrong host and a missing workspace.
 */
import { stat, realpath } from 'node:fs/promises';
import { ApplicationFailure, ApplicationFailureCategory } from '@temporalio/common';
import { FailureType } from '../../workflows/common/failure-types';
import type { OutcomeUnknownDetails } from '../../workflows/tools/outcome-unknown';
import { activityContextOrUndefined } from '../activity-context';

/** Failure types the tool activities throw; everything else comes back as a ToolOutcome. */
export const ToolActivityFailureType = {
  /** The goal's workspace directory is gone: no tool can run, retrying will not help. */
  WorkspaceMissing: 'WorkspaceMissing',
  /** The activity input itself is malformed: a bug in the caller, not something to retry. */
  InvalidToolActivityInput: 'InvalidToolActivityInput',
  /** The goal's tool patterns match nothing this worker has. */
  UnknownTools: FailureType.UnknownTools,
  /** An irreversible call began but recorded no outcome: reported, never run again. */
  OutcomeUnknown: FailureType.OutcomeUnknown,
  /** The call reached a worker of another host than the goal's workspace host. */
  WrongHost: FailureType.WrongHost,
} as const;
export type ToolActivityFailureType = (typeof ToolActivityFailureType)[keyof typeof ToolActivityFailureType];

export function outcomeUnknown(message: string, details: OutcomeUnknownDetails): ApplicationFailure {
  return ApplicationFailure.create({
    message,
    type: ToolActivityFailureType.OutcomeUnknown,
    nonRetryable: true,
    details: [details],
  });
}

/**
 * A quick read run as a local activity on a worker that is not the goal's host is refused and
 * goes to the host's queue: a normal re-route, so the failure is BENIGN, which the SDK logs at
 * debug level without a stack trace (and leaves out of its failure metrics) instead of a warning
 * with the whole trace per read. On the host's own queue it would be a misrouted call: loud.
 */
export function wrongHost(message: string): ApplicationFailure {
  const local = activityContextOrUndefined()?.info.isLocal === true;
  return ApplicationFailure.create({
    message,
    type: ToolActivityFailureType.WrongHost,
    nonRetryable: true,
    ...(local ? { category: ApplicationFailureCategory.BENIGN } : {}),
  });
}

export async function existingWorkspace(workspace: string): Promise<string> {
  try {
    if ((await stat(workspace)).isDirectory()) return await realpath(workspace);
  } catch {
    // reported below
  }
  throw ApplicationFailure.nonRetryable(
    `The workspace directory ${workspace} does not exist (or is not a directory); no tool can run.`,
    ToolActivityFailureType.WorkspaceMissing,
  );
}
