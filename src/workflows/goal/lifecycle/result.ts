import { ApplicationFailure, ChildWorkflowFailure } from '@temporalio/common';
import { z } from 'zod';
import type { GoalInput } from './input';
import { workspaceLossSchema, type WorkspaceLoss, type WorkspaceWrites } from '../../hosts/workspace-writes';
import { goalCountersSchema, GoalStatus, tokenUsageSchema, type GoalState } from './state';
import type { ModelsView } from '../model-turn/fallback';
import type { ChildSpend } from '../oversight/child-budget';

/** Numbers that show how the harness principles acted on this goal. */
export interface GoalStats {
  hypothesesGiven: number;
  hypothesisMismatches: number;
  checkpoints: number;
  checkpointsAddressed: number;
  /** Share of checkpoints whose next reply answered them; undefined without tracking or checkpoints. */
  reflectionResponseRate?: number;
  /** Read-only calls per mutating (incl. irreversible) call; null when nothing mutated. */
  explorationRatio: number | null;
  usdEstimate: number;
  usdPriced: boolean;
  /** The share of input tokens read from the prompt cache (0 before any turn). */
  cacheHitRate: number;
  elapsedMs: number;
  structuredCalls: number;
  rawFallbackRate: number;
  assessments: number;
  consolidations: number;
}

/**
 * How a goal ended, as its workflow returns it when it completes, or carries it as the details of
 * its ApplicationFailure when it fails, hits a limit or a budget, or is rejected (see
 * goal/lifecycle/ending.ts). Clients read both with `goalResult` (src/client/goal-client.ts).
 */
export interface GoalResult {
  status: GoalStatus;
  reason?: string;
  finalText?: string;
  counters: GoalState['counters'];
  usage: GoalState['usage'];
  tasks: number;
  stats: GoalStats;
  planAttempt?: number;
  reflection?: string;
  /** The goal moved and its workspace was recreated without some of its writes (workspace-writes.ts). */
  workspaceLoss?: WorkspaceLoss[];
  /** With fallback models: which model answered which turns, and each model's cost. */
  models?: ModelsView;
  /** What its child goals spent, counted in its budget and its cost (goal/oversight/child-budget.ts). */
  childSpend?: ChildSpend;
  /** What its calls changed in its workspace (hosts/workspace-writes.ts): a delegated child's is told to its parent. */
  workspaceWrites?: WorkspaceWrites;
}

/** Checks a result read back from a failure's details (a boundary: the payload is just JSON). */
export const goalResultSchema = z.lazy(() =>
  z.looseObject({
    status: z.enum(GoalStatus),
    reason: z.string().optional(),
    finalText: z.string().optional(),
    counters: goalCountersSchema,
    usage: tokenUsageSchema,
    tasks: z.number().int().nonnegative(),
    stats: z.looseObject({}),
    planAttempt: z.number().int().optional(),
    reflection: z.string().optional(),
    workspaceLoss: z.array(workspaceLossSchema).optional(),
  }),
);

/** The result in a value read back from Temporal, or undefined when it is not one. */
export function asGoalResult(value: unknown): GoalResult | undefined {
  const parsed = goalResultSchema.safeParse(value);
  return parsed.success ? (value as GoalResult) : undefined;
}

/** How a sub-goal ended, in a line for its parent's note: "completed: its answer". */
export function describeChildResult(result: GoalResult): string {
  const detail = result.finalText ?? result.reason;
  return `${result.status}${detail ? `: ${detail}` : ''}`;
}

/** The result a child goal that did not complete carries in its failure's details, if any. */
export function resultOfChildFailure(error: unknown): GoalResult | undefined {
  return error instanceof ChildWorkflowFailure && error.cause instanceof ApplicationFailure
    ? asGoalResult(error.cause.details?.[0])
    : undefined;
}

/** The goal workflow's signature, for code that starts it as a child without importing it. */
export type GoalWorkflowFunction = (input: GoalInput, carried?: unknown) => Promise<GoalResult>;
