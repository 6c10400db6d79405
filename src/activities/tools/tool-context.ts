import type { Reversibility } from '../../workflows/reversibility';
import type { ToolOutcome } from '../../workflows/tools/tool-outcome';

/**
 * What a tool implementation may use besides its input. Inside a Temporal activity the signal is
 * the activity's cancellation signal and heartbeat reports liveness; in unit tests both are plain.
 */
export interface ToolContext {
  /** Absolute, symlink-resolved workspace directory; every path is confined to it. */
  readonly workspace: string;
  /** Stable across retries of the same call; handed to commands as KEEL_IDEMPOTENCY_KEY. */
  readonly idempotencyKey: string;
  readonly signal: AbortSignal;
  heartbeat(): void;
  /** How often long-running tools heartbeat; defaults to a few seconds. */
  readonly heartbeatIntervalMilliseconds?: number;
  /** The goal allows network access (sandbox.network); commands get none otherwise. */
  readonly network?: boolean;
  /**
   * As decided for this call (irreversible when either the workflow or the activity says so).
   * Read-only calls ran without approval, so an unconfined worker checks them harder.
   */
  readonly reversibility?: Reversibility;
}

/** The side-effecting half of a tool. Tool-level failures are outcomes, never exceptions. */
export type ToolImplementation<Input> = (input: Input, context: ToolContext) => Promise<ToolOutcome>;
