import { ApplicationFailure } from '@temporalio/common';
import type { ToolOutcome } from '../../../workflows/tools/tool-outcome';
import { failure } from '../tool-outcomes';
import { NETWORK_ISOLATION_UNAVAILABLE } from './network-isolation';

/** The typed failure network-isolation.ts throws before anything is started. */
export function isNetworkIsolationUnavailable(error: unknown): error is ApplicationFailure {
  return error instanceof ApplicationFailure && error.type === NETWORK_ISOLATION_UNAVAILABLE;
}

/** The outcome of a call whose error says nothing was started; undefined for any other error. */
export function nothingRanOutcome(error: unknown): ToolOutcome | undefined {
  return isNetworkIsolationUnavailable(error) ? networkIsolationUnavailableOutcome(error) : undefined;
}

/**
 * What the model (and the ledger, which records the result) reads when a command was granted
 * network on a worker that cannot isolate it. Nothing was started — the failure is thrown while
 * the launcher's arguments are built — so this is a plain failed call, never an outcome to
 * investigate, and running it again here fails the same way until slirp4netns is installed.
 */
export function networkIsolationUnavailableOutcome(error: ApplicationFailure): ToolOutcome {
  return failure({
    content: `Not run (${NETWORK_ISOLATION_UNAVAILABLE}): nothing was started and nothing changed. ${error.message}.`,
    candidates: [
      'Do not run it again on this worker: every command of this goal fails the same way until network isolation is installed',
      'Do what you can without running a command, or finish and say in your answer that this worker lacks network isolation (slirp4netns)',
    ],
  });
}
