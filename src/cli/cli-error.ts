import type * as TemporalClient from '@temporalio/client';
import { EncryptionKeysError } from '../codec/encryption-keys-error';
import { ExitCode } from './exit-codes';

/** A problem the user can fix: printed as one line, exit code 2 (unless another is given), no stack trace. */
export class CliError extends Error {
  override readonly name = 'CliError';

  constructor(
    message: string,
    /** ExitCode.NoWorker when the goal's worker did not answer, so scripts can tell it from a mistake. */
    readonly exitCode: ExitCode = ExitCode.BadInput,
  ) {
    super(message);
  }
}

/** One line for any error a command can raise. */
export function describeCliError(error: unknown, context: { address: string }): string {
  if (error instanceof CliError || error instanceof EncryptionKeysError) return error.message;
  // Loaded here, not at the top: a command that fails before connecting (or --help) should not
  // pay for loading the Temporal client, and one that connected has loaded it already.
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { TerminatedFailure, WorkflowNotFoundError, WorkflowUpdateFailedError, WorkflowFailedError } =
    require('@temporalio/client') as typeof TemporalClient;
  /* eslint-enable @typescript-eslint/no-require-imports */
  if (error instanceof WorkflowNotFoundError) return `no goal with id ${error.workflowId ?? ''}`.trim();
  if (error instanceof WorkflowUpdateFailedError) return `refused: ${error.cause?.message ?? error.message}`;
  if (error instanceof WorkflowFailedError && error.cause instanceof TerminatedFailure)
    return `goal terminated by Temporal, outside keel: ${error.cause.message}`;
  if (error instanceof WorkflowFailedError) return `goal failed: ${error.cause?.message ?? error.message}`;
  const message = error instanceof Error ? error.message : String(error);
  if (/connect|ECONNREFUSED|transport|UNAVAILABLE|deadline/i.test(message)) {
    return `cannot reach Temporal at ${context.address}: start a dev server (temporal server start-dev) or set TEMPORAL_ADDRESS / --address`;
  }
  return message.split('\n')[0] ?? message;
}
