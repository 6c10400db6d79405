import { z } from 'zod';
import {
  DelegateWorkspace,
  delegateWorkspaceSchema,
  type DelegateBudget,
  type DelegateInput,
} from '../tools/delegate-spec';

/**
 * The decisions of delegation (issue 47), pure: who may delegate, which tools a child gets, what
 * budget it is given and when it may start. goal/tool-calls/delegation.ts applies them.
 *
 * Budgets are typed by their shape (as in goal/oversight/child-budget.ts) to keep this module out
 * of the import closure of the mutation-measured budget code.
 */

export const delegationSettingsSchema = z
  .object({
    /** Offer the model the delegate tool. */
    enabled: z.boolean().default(false),
    /** How deep a tree of goals may grow: a goal at this depth is not offered delegate. */
    maxDepth: z.number().int().min(1).max(5).default(2),
    /** Children of one goal running at once; further delegate calls wait for one to end. */
    maxConcurrent: z.number().int().min(1).max(10).default(3),
    /** This goal's depth in its tree (0 for a goal started by a person); set by its parent. */
    depth: z.number().int().min(0).max(5).default(0),
  })
  .strict();
export type DelegationSettings = z.output<typeof delegationSettingsSchema>;

/** Whether the goal is offered delegate: asked for, and not at the tree's depth limit. */
export function mayDelegate(settings: DelegationSettings | undefined): boolean {
  return settings !== undefined && settings.enabled && settings.depth < settings.maxDepth;
}

/** The part of a catalogue entry the tool choice reads. */
export interface DelegableTool {
  name: string;
  tier: { kind: 'fixed'; tier: string } | { kind: 'per-call' };
}

export type ChildTools = { ok: true; names: string[] } | { ok: false; error: string };

/**
 * The child's tools: those asked for, each one of the parent's; all of the parent's when none are
 * named. A read-only child gets only tools that can never change anything (a fixed read-only
 * tier): a tool whose tier depends on its input may write.
 */
export function childTools(
  catalogue: readonly DelegableTool[],
  input: Pick<DelegateInput, 'tools' | 'workspace'>,
): ChildTools {
  const ownNames = catalogue.map((entry) => entry.name);
  const unknown = (input.tools ?? []).filter((name) => !ownNames.includes(name));
  if (unknown.length > 0) {
    return {
      ok: false,
      error: `Not your tools: ${unknown.join(', ')}. A child may use only tools you have: ${ownNames.join(', ')}.`,
    };
  }
  const asked =
    input.tools === undefined ? catalogue : catalogue.filter((entry) => input.tools?.includes(entry.name));
  if (input.workspace !== DelegateWorkspace.ReadOnly) {
    return asked.length === 0
      ? { ok: false, error: 'You have no tools to give a child.' }
      : { ok: true, names: asked.map((entry) => entry.name) };
  }
  const readOnly = asked.filter((entry) => entry.tier.kind === 'fixed' && entry.tier.tier === 'read-only');
  if (input.tools !== undefined && readOnly.length < asked.length) {
    const writing = asked.filter((entry) => !readOnly.includes(entry));
    return {
      ok: false,
      error: `A read-only child cannot have tools that may change the workspace: ${writing.map((entry) => entry.name).join(', ')}. Leave them out, or delegate with workspace "shared".`,
    };
  }
  return readOnly.length === 0
    ? { ok: false, error: 'You have no read-only tools to give a read-only child.' }
    : { ok: true, names: readOnly.map((entry) => entry.name) };
}

/** The limits of principles/budget.ts's Budget a child is given. */
export interface SliceableBudget {
  maxTokens?: number | undefined;
  maxUsd?: number | undefined;
  maxToolCalls?: number | undefined;
  warnAt: number[];
}

/**
 * The child's budget: what is left of the parent's (carved: goal/oversight/child-budget.ts), cut
 * to the slice the model asked for. A slice never raises a limit; a parent without a budget gives
 * exactly the slice.
 */
export function sliceBudget<B extends SliceableBudget>(
  carved: B | undefined,
  slice: DelegateBudget,
): B | SliceableBudget | undefined {
  const lower = (limit: number | undefined, asked: number | undefined) =>
    limit === undefined ? asked : asked === undefined ? limit : Math.min(limit, asked);
  const base: SliceableBudget | undefined =
    carved ??
    (slice.maxUsd === undefined && slice.maxTokens === undefined && slice.maxToolCalls === undefined
      ? undefined
      : { warnAt: [] });
  if (base === undefined) return undefined;
  const sliced = { ...base, warnAt: [...base.warnAt] };
  const maxTokens = lower(base.maxTokens, slice.maxTokens);
  const maxUsd = lower(base.maxUsd, slice.maxUsd);
  const maxToolCalls = lower(base.maxToolCalls, slice.maxToolCalls);
  if (maxTokens !== undefined) sliced.maxTokens = maxTokens;
  if (maxUsd !== undefined) sliced.maxUsd = maxUsd;
  if (maxToolCalls !== undefined) sliced.maxToolCalls = maxToolCalls;
  return sliced;
}

/** What a running child holds of its parent's budget until it ends: its budget's limits. */
export const reservationSchema = z.object({
  tokens: z.number().nonnegative(),
  usd: z.number().nonnegative(),
  toolCalls: z.number().nonnegative(),
});
export type Reservation = z.infer<typeof reservationSchema>;

export function reservationOf(budget: SliceableBudget | undefined): Reservation {
  return { tokens: budget?.maxTokens ?? 0, usd: budget?.maxUsd ?? 0, toolCalls: budget?.maxToolCalls ?? 0 };
}

/** A child started by delegate and not yet ended (in the goal's state, for its views). */
export const runningChildSchema = z.object({
  callId: z.string(),
  workflowId: z.string(),
  task: z.string(),
  workspace: delegateWorkspaceSchema,
  reserved: reservationSchema,
  /** The tool calls of the parent's limit it holds (its own limit); absent in older states: none. */
  heldCalls: z.number().int().nonnegative().optional(),
});
export type RunningChild = z.infer<typeof runningChildSchema>;

export const delegationStateSchema = z.object({
  /** Children started so far (names the next one). */
  started: z.number().int().nonnegative(),
  running: z.array(runningChildSchema),
});
export type DelegationState = z.infer<typeof delegationStateSchema>;

/** The parent's spend as seen by a child about to start: its own, its ended children's, and what running children hold. */
export function spentWithReservations<S extends { tokens: number; usd: number; toolCalls: number }>(
  spent: S,
  running: readonly RunningChild[],
): S {
  const held = running.reduce(
    (total, child) => ({
      tokens: total.tokens + child.reserved.tokens,
      usd: total.usd + child.reserved.usd,
      toolCalls: total.toolCalls + child.reserved.toolCalls,
    }),
    { tokens: 0, usd: 0, toolCalls: 0 },
  );
  return {
    ...spent,
    tokens: spent.tokens + held.tokens,
    usd: spent.usd + held.usd,
    toolCalls: spent.toolCalls + held.toolCalls,
  };
}

/**
 * Whether a child may start now: fewer than maxConcurrent children run, and a child that may
 * change the shared workspace never runs beside another such child (their writes would race).
 * Children on their own copies race nobody: their changes are merged when they end.
 */
export function mayStartChild(
  running: readonly RunningChild[],
  workspace: DelegateWorkspace,
  maxConcurrent: number,
): boolean {
  if (running.length >= maxConcurrent) return false;
  return (
    workspace !== DelegateWorkspace.Shared ||
    running.every((child) => child.workspace !== DelegateWorkspace.Shared)
  );
}

/**
 * The tool-call limit a child starts with: the parent's limit is the tree's, so what is left of
 * it once the parent's own calls, its ended children's and the holds of running children are
 * counted, cut to the slice's `maxToolCalls`. 0: nothing is left for it (it waits for a running
 * sibling, or is not started).
 */
export function childCallLimit(options: {
  limit: number;
  ownCalls: number;
  endedChildrenCalls: number;
  running: readonly RunningChild[];
  slice: number | undefined;
}): number {
  const held = options.running.reduce((total, child) => total + (child.heldCalls ?? 0), 0);
  const left = Math.max(0, options.limit - options.ownCalls - options.endedChildrenCalls - held);
  return options.slice === undefined ? left : Math.min(left, options.slice);
}

/** The child goal's workflow id: the parent's, and the child's number in it. */
export function childWorkflowId(parentWorkflowId: string, number: number): string {
  return `${parentWorkflowId}-delegate-${number}`;
}
