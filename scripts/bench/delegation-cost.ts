/**
 * What a delegation costs (issue 47), measured in the same run as what it is compared with: keel
 * goals whose model makes one plain tool call (a read) and then answers, and keel goals whose
 * model makes one `delegate` call instead — its child goal makes that same read and answers, then
 * the parent answers. Both goals offer the delegate tool, so the call made is the only difference.
 * The pairs are interleaved, their order alternating, so a noisy neighbour hits both alike; one
 * unmeasured pair first warms the child's code path.
 *
 * Wall time is start to result (the child runs inside its parent's call). History events are the
 * plain goal's, the delegating parent's and its child's: a child is a workflow of its own, so the
 * parent's history holds only the child's start and end, and the child's holds the rest.
 */
import type { Client } from '@temporalio/client';
import type { GoalResult } from '../../src/workflows/goal/lifecycle/result';
import { DELEGATED_CHILD, ScenarioKind, type BenchScenario } from './bench-scenario';
import { measureGoal, type GoalMeasurement } from './comparison';
import { chainHistory, childrenOf } from './history';
import { spread, type Spread } from './stats';
import type { BenchSystem } from './systems';

/** One pair: the plain goal and the delegating one, in the same repetition. */
export interface DelegationPair {
  repetition: number;
  plain: { workflowId: string; wallMs: number; events: number; bytes: number };
  delegated: {
    workflowId: string;
    childWorkflowId: string;
    wallMs: number;
    parentEvents: number;
    childEvents: number;
    parentBytes: number;
    childBytes: number;
  };
}

export interface DelegationCostResult {
  repetitions: number;
  /** Pairs in which both goals completed, the child too, each with its one call: the figures' sample. */
  pairs: DelegationPair[];
  plainMs: Spread;
  delegatedMs: Spread;
  /** The delegating goal's wall time over the plain one's of the same pair. */
  msRatio: Spread;
  /** The delegating goal's wall time less the plain one's of the same pair. */
  extraMs: Spread;
  plainEvents: Spread;
  parentEvents: Spread;
  childEvents: Spread;
  /** Parent and child together. */
  totalEvents: Spread;
  /** Paired differences: the parent's events less the plain goal's, and the same for both together. */
  extraParentEvents: Spread;
  extraTotalEvents: Spread;
  errors: string[];
}

const PLAIN: BenchScenario = { ...DELEGATED_CHILD, delegation: true };
const DELEGATING: BenchScenario = { kind: ScenarioKind.Delegate, calls: 1, perTurn: 1 };

export async function measureDelegationCost(options: {
  client: Client;
  keel: BenchSystem;
  repetitions: number;
  workspace: () => string;
  log: (line: string) => void;
}): Promise<DelegationCostResult> {
  const { client, keel, log } = options;
  const pairs: DelegationPair[] = [];
  const errors: string[] = [];
  const warm = await measurePair(client, keel, 0, options.workspace);
  if (typeof warm === 'string') throw new Error(`the warm-up pair failed: ${warm}`);
  for (let repetition = 1; repetition <= options.repetitions; repetition++) {
    const pair = await measurePair(client, keel, repetition, options.workspace);
    if (typeof pair === 'string') {
      errors.push(`#${repetition}: ${pair}`);
      log(`bench: delegation #${repetition} FAILED: ${pair}`);
      continue;
    }
    pairs.push(pair);
    const { plain, delegated } = pair;
    log(
      `bench: delegation #${repetition}: plain call ${plain.wallMs.toFixed(0)} ms, ${plain.events} events; ` +
        `delegated ${delegated.wallMs.toFixed(0)} ms, ${delegated.parentEvents} + ${delegated.childEvents} events (parent + child)`,
    );
  }
  if (pairs.length === 0) throw new Error(`no pair completed: ${errors.join('; ')}`);
  const of = (pick: (pair: DelegationPair) => number) => spread(pairs.map(pick));
  const total = (pair: DelegationPair) => pair.delegated.parentEvents + pair.delegated.childEvents;
  return {
    repetitions: options.repetitions,
    pairs,
    plainMs: of((pair) => pair.plain.wallMs),
    delegatedMs: of((pair) => pair.delegated.wallMs),
    msRatio: of((pair) => pair.delegated.wallMs / pair.plain.wallMs),
    extraMs: of((pair) => pair.delegated.wallMs - pair.plain.wallMs),
    plainEvents: of((pair) => pair.plain.events),
    parentEvents: of((pair) => pair.delegated.parentEvents),
    childEvents: of((pair) => pair.delegated.childEvents),
    totalEvents: of(total),
    extraParentEvents: of((pair) => pair.delegated.parentEvents - pair.plain.events),
    extraTotalEvents: of((pair) => total(pair) - pair.plain.events),
    errors,
  };
}

/** One pair, plain first in odd repetitions and second in even ones; a string says what failed. */
async function measurePair(
  client: Client,
  keel: BenchSystem,
  repetition: number,
  workspace: () => string,
): Promise<DelegationPair | string> {
  const plainFirst = repetition % 2 === 1;
  const measured: Partial<Record<'plain' | 'delegated', GoalMeasurement>> = {};
  for (const which of plainFirst ? (['plain', 'delegated'] as const) : (['delegated', 'plain'] as const)) {
    const scenario = which === 'plain' ? PLAIN : DELEGATING;
    const id = `bench-delegation-${which}-${repetition}-${Date.now()}`;
    measured[which] = await measureGoal(client, keel, scenario, repetition, workspace(), id);
  }
  const plain = measured.plain!;
  const delegated = measured.delegated!;
  for (const goal of [plain, delegated])
    if (!goal.completed) return `${goal.workflowId}: ${goal.error ?? 'did not complete'}`;
  const parent = await chainHistory(client, delegated.workflowId, delegated.firstRunId);
  const children = await childrenOf(client, delegated.workflowId, parent.runIds);
  if (children.length !== 1) return `${delegated.workflowId} started ${children.length} children, not 1`;
  const child = children[0]!;
  const childEnded = await childOutcome(client, child.workflowId, child.runId);
  if (childEnded !== undefined) return `its child ${child.workflowId} ${childEnded}`;
  const childHistory = await chainHistory(client, child.workflowId, child.runId);
  return {
    repetition,
    plain: { workflowId: plain.workflowId, wallMs: plain.wallMs, events: plain.events, bytes: plain.bytes },
    delegated: {
      workflowId: delegated.workflowId,
      childWorkflowId: child.workflowId,
      wallMs: delegated.wallMs,
      parentEvents: delegated.events,
      childEvents: childHistory.events,
      parentBytes: delegated.bytes,
      childBytes: childHistory.bytes,
    },
  };
}

/** Undefined when the child completed with its one call; otherwise how it ended. */
async function childOutcome(client: Client, workflowId: string, runId: string): Promise<string | undefined> {
  try {
    const result = (await client.workflow.getHandle(workflowId, runId).result()) as GoalResult;
    if (result.status !== 'completed') return `ended ${result.status}: ${result.reason ?? ''}`;
    const calls = result.counters.toolCalls;
    return calls === DELEGATED_CHILD.calls ? undefined : `made ${calls} calls, not ${DELEGATED_CHILD.calls}`;
  } catch (error) {
    return `failed: ${error instanceof Error ? error.message : String(error)}`;
  }
}

const number = (value: number, digits = 0) => (Number.isFinite(value) ? value.toFixed(digits) : '–');
const range = (value: Spread, digits = 0) =>
  `${number(value.median, digits)} (${number(value.min, digits)}–${number(value.max, digits)})`;
const signed = (value: number, digits = 0) => `${value >= 0 ? '+' : ''}${number(value, digits)}`;

/** The report's line (report.ts), or its skipped line. */
export function delegationMarkdown(result: DelegationCostResult | { skipped: string } | undefined): string[] {
  if (result === undefined) return [];
  if ('skipped' in result) return [`- A delegation against a plain tool call: skipped (${result.skipped}).`];
  const failed = result.errors.length > 0 ? ` FAILED pairs: ${result.errors.join('; ')}.` : '';
  return [
    `- A delegation against a plain tool call (keel goals that make one call, then answer; the delegating goal's call is \`delegate\`, whose child makes the plain goal's read and answers; median (min–max) of ${result.pairs.length} of ${result.repetitions} interleaved pairs): **a delegation costs ${signed(result.extraTotalEvents.median)} history events and ${signed(result.extraMs.median)} ms more than a plain tool call (${number(result.msRatio.median, 2)}× its wall time)**. Wall time: plain ${range(result.plainMs)} ms, delegating ${range(result.delegatedMs)} ms. History events: plain ${range(result.plainEvents)}; the delegating parent ${range(result.parentEvents)} (${signed(result.extraParentEvents.median)}) and its child ${range(result.childEvents)}: ${range(result.totalEvents)} together.${failed}`,
  ];
}
