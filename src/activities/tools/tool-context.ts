import type { ToolOutcome } from '../../workflows/tools/tool-outcome';
import type { ToolExecutionContext } from './define-tool';

/**
 * What the built-in tools use besides their input: the public execution context, plus how often
 * a long-running command heartbeats (unit tests leave it to the default).
 */
export interface ToolContext extends ToolExecutionContext {
  readonly heartbeatIntervalMilliseconds?: number;
  /**
   * Names this one call for every attempt of it (the workflow's idempotency key): a command's
   * copy-on-write layer is kept under it, so a retry finds what an earlier attempt left.
   */
  readonly callKey?: string;
}

/** The side-effecting half of a built-in tool. Tool-level failures are outcomes, never exceptions. */
export type ToolImplementation<Input> = (input: Input, context: ToolContext) => Promise<ToolOutcome>;
