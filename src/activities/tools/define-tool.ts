import type { z } from 'zod';
import { Reversibility } from '../../workflows/tools/reversibility';
import type { ToolOutcome } from '../../workflows/tools/tool-outcome';
import { TOOL_NAME_PATTERN } from '../../workflows/tools/tool-catalogue';

export { Reversibility };

/** What a per-call tier function may take into account besides the input. */
export interface TierContext {
  /** The goal allows network access: a command that can reach the network can send anything anywhere. */
  readonly network: boolean;
  /**
   * What this worker's sandbox holds a command to: `layers` (read-only calls read-only, others
   * on a copy-on-write layer), `read-only` (no layer: only read-only calls are held to their
   * tier), `none` (no sandbox). Absent: not known (take the strictest reading).
   */
  readonly commands?: CommandConfinement;
}

export type CommandConfinement = 'layers' | 'read-only' | 'none';

/** A per-call tier with the reason people see in the approval request and the ledger. */
export interface TierDecision {
  readonly tier: Reversibility;
  readonly reason: string;
}

/** What a tool's `execute` may use besides its input. */
export interface ToolExecutionContext {
  /** Absolute, symlink-resolved workspace of the goal. Keep files the tool touches inside it. */
  readonly workspace: string;
  readonly goalId: string;
  readonly callId: string;
  /**
   * Set for irreversible calls: stable across every attempt of this one call (workflow id + call
   * id). Hand it to the system you call (a payment's idempotency key, a deploy id) so a repeat is
   * refused there too.
   */
  readonly idempotencyKey: string | undefined;
  /** This call's tier, as decided before it ran (irreversible calls were approved by a human). */
  readonly reversibility: Reversibility;
  /**
   * Whether a human approved this call before it ran. keel's own tools hold an unapproved call to
   * what its tier allows (a deletion, `.git/config`) and ask for a human when it reaches further.
   */
  readonly approved: boolean;
  /**
   * Paths a human's denials in this goal cover, relative to the workspace: an unapproved call
   * that would change one waits for a human (keel's run_command checks its layer against them).
   */
  readonly deniedEffects?: readonly string[];
  /**
   * Whether the goal allows network access (goal input sandbox.network). A tool that runs commands
   * should run them with runSandboxedCommand and pass this on; see docs/approvals-and-security.md, "Sandbox".
   */
  readonly network: boolean;
  /** Aborted when the goal is cancelled or the call times out: stop work and return. */
  readonly signal: AbortSignal;
  /** Reports liveness for long calls; keel also heartbeats for you while execute runs. */
  heartbeat(details?: unknown): void;
  readonly log: ToolLogger;
}

export interface ToolLogger {
  info(message: string, attributes?: Record<string, unknown>): void;
  warn(message: string, attributes?: Record<string, unknown>): void;
  error(message: string, attributes?: Record<string, unknown>): void;
}

/**
 * What execute may return: a string (the result the model reads), a ToolOutcome (built-ins use
 * `success`/`failure` to add candidates and facts), or any JSON value (sent as JSON). Throwing is a
 * failure too: the model reads the message and the tool's own next actions.
 */
export type ToolReturn = unknown;

export interface ToolFailure<Input> {
  readonly input: Input;
  /** The thrown error, when execute threw. */
  readonly error?: unknown;
  /** The failed outcome, when execute returned one. */
  readonly outcome?: ToolOutcome;
}

export interface ToolDefinitionOptions<Schema extends z.ZodType> {
  /** What the model calls it: letters, digits, _ and -, at most 64 characters. */
  readonly name: string;
  /** Sent to the model: say what it does, what it returns, and when not to use it. */
  readonly description: string;
  /** The input schema; the JSON schema the model sees is generated from it. */
  readonly input: Schema;
  /**
   * How far a call reaches: a tier for every call, or a function of the parsed input (like
   * run_command, whose tier depends on the command). Irreversible calls wait for a human and run
   * at most once; mutating calls wait under the `ask` approval policy.
   */
  readonly reversibility:
    Reversibility | ((input: z.output<Schema>, context: TierContext) => Reversibility | TierDecision);
  readonly execute: (input: z.output<Schema>, context: ToolExecutionContext) => Promise<ToolReturn>;
  /**
   * The tool's own 2-3 concrete next actions after a failure (harness principle 2: the tool knows
   * its domain, the framework does not speak for it).
   */
  readonly nextActionsOnFailure?: (failure: ToolFailure<z.output<Schema>>) => readonly string[];
  /** A short label for approvals and the Web UI, e.g. "send_invoice: ACME 120.00 EUR". */
  readonly summarize?: (input: z.output<Schema>) => string;
  /** Start-to-close timeout of one call in milliseconds (default: the goal's tool timeout). */
  readonly timeoutMs?: number;
  /**
   * Offer the model the optional `hypothesis` field, as every built-in does (default true): what
   * it expects the call to show, compared with the result (principle 1). keel adds it to the
   * schema the model sees and takes it out before your code runs, so `input` stays as you wrote
   * it. `false` leaves the schema exactly as given.
   */
  readonly hypothesis?: boolean;
}

/** A tool keel can register: the options, checked, and marked as keel's. */
export interface ToolDefinition<Schema extends z.ZodType = z.ZodType> extends ToolDefinitionOptions<Schema> {
  readonly kind: 'keel-tool';
}

/** Any tool, whatever its input type (what a registry holds). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the registry is heterogeneous by design
export type AnyToolDefinition = ToolDefinition<any>;

export class ToolDefinitionError extends Error {
  override readonly name = 'ToolDefinitionError';
}

/**
 * Defines a tool. Checked at once, so a bad definition fails where it is written (and again at
 * worker start, with the tool's name): see docs/tools-and-mcp.md.
 */
export function defineTool<Schema extends z.ZodType>(
  options: ToolDefinitionOptions<Schema>,
): ToolDefinition<Schema> {
  if (!TOOL_NAME_PATTERN.test(options.name)) {
    throw new ToolDefinitionError(
      `tool name "${options.name}" is not allowed by the model API: use 1-64 letters, digits, _ or -`,
    );
  }
  if (options.description.trim() === '')
    throw new ToolDefinitionError(`tool "${options.name}" has no description`);
  if (
    typeof options.reversibility === 'string' &&
    !Object.values(Reversibility).includes(options.reversibility)
  ) {
    throw new ToolDefinitionError(
      `tool "${options.name}" has reversibility "${String(options.reversibility)}": use read-only, mutating or irreversible`,
    );
  }
  if (options.timeoutMs !== undefined && !(Number.isInteger(options.timeoutMs) && options.timeoutMs > 0)) {
    throw new ToolDefinitionError(
      `tool "${options.name}" has timeoutMs ${options.timeoutMs}: use a positive integer`,
    );
  }
  if (options.hypothesis !== undefined && typeof options.hypothesis !== 'boolean') {
    throw new ToolDefinitionError(
      `tool "${options.name}" has hypothesis ${String(options.hypothesis)}: use true or false`,
    );
  }
  return { ...options, kind: 'keel-tool' };
}
