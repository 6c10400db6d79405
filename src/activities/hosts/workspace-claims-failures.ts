import { ApplicationFailure } from '@temporalio/common';

/** Failure types of the host's workspace claims registry (workspace-claims.ts). */
export const WorkspaceClaimsFailureType = {
  /** The registry file is not JSON or not keel's schema: it will not mend itself, so never retried. */
  RegistryCorrupt: 'WorkspaceClaimsRegistryCorrupt',
  /** The registry's lock was lost mid-claim (a refresh missed its window under load): retried. */
  LockCompromised: 'WorkspaceClaimsLockCompromised',
} as const;

/** One line naming the file to look at; non-retryable, as every retry would read the same bytes. */
export function registryCorrupt(file: string, why: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    `the workspace claims registry ${file} is not keel's (${why}): look at it, and remove it to start an empty registry (the claims of goals running on this host go with it)`,
    WorkspaceClaimsFailureType.RegistryCorrupt,
  );
}

/**
 * Another claimant may have taken the lock over and judged against the registry meanwhile, so
 * this claim decides nothing; a retry takes the lock afresh and judges again (a claim is
 * idempotent for its goal). Thrown, never left to proper-lockfile's default, which throws inside
 * a timer: an uncaught exception that would end the whole worker.
 */
export function lockCompromised(file: string, error: Error): ApplicationFailure {
  return ApplicationFailure.retryable(
    `the lock of the workspace claims registry ${file} was lost before the claim was recorded (${error.message}); claiming again`,
    WorkspaceClaimsFailureType.LockCompromised,
  );
}
