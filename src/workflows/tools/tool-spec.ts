import type { z } from 'zod';
import type { Reversibility } from '../reversibility';

/**
 * The pure half of a tool: what the model is told, how its input is validated, and how costly and
 * how reversible a call is. It lives in workflow code because the workflow decides approvals from
 * it before any activity runs; the side-effecting half lives in src/activities/tools.
 */
export interface ToolSpec<Input = unknown> {
  readonly name: string;
  /** Sent to the model. Costly tools recommend a hypothesis here (principle 1). */
  readonly description: string;
  readonly inputSchema: z.ZodType<Input>;
  /** Decided from the call's arguments alone; deterministic. */
  reversibility(input: Input): Reversibility;
  /** A short label naming the tool and its key argument, e.g. "run_command: rm -rf build". */
  summarize(input: Input): string;
}
