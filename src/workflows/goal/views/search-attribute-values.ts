import {
  defineSearchAttributeKey,
  SearchAttributeType,
  type SearchAttributeUpdatePair,
  type TypedSearchAttributes,
} from '@temporalio/common';
import type { GoalPhase, GoalStatus } from '../lifecycle/state';

/**
 * Typed keys for keel's custom search attributes, and the values a goal upserts so the Web UI can
 * filter on them (e.g. `KeelPendingApprovals > 0`). The names and types must match what the dev
 * server registers (src/dev-server/search-attributes.ts); a unit test holds the two together.
 * Defined here rather than derived from that file so workflow code depends on nothing outside
 * src/workflows.
 */
export const KeelSearchAttributes = {
  status: defineSearchAttributeKey('KeelStatus', SearchAttributeType.KEYWORD),
  phase: defineSearchAttributeKey('KeelPhase', SearchAttributeType.KEYWORD),
  toolCalls: defineSearchAttributeKey('KeelToolCalls', SearchAttributeType.INT),
  planAttempt: defineSearchAttributeKey('KeelPlanAttempt', SearchAttributeType.INT),
  pendingApprovals: defineSearchAttributeKey('KeelPendingApprovals', SearchAttributeType.INT),
  /** A Double: SQL visibility stores allow only three custom Int attributes per namespace. */
  priority: defineSearchAttributeKey('KeelPriority', SearchAttributeType.DOUBLE),
  /** The workspace host the goal is bound to (written when it binds and when it is rebound). */
  host: defineSearchAttributeKey('KeelHost', SearchAttributeType.KEYWORD),
  /** What the goal has spent, in USD, its delegated children's and sub-goals' spend included. */
  costUsd: defineSearchAttributeKey('KeelCostUsd', SearchAttributeType.DOUBLE),
  /** The goal a fork or a rewind came from: set once, by the client that starts it, never upserted. */
  forkOf: defineSearchAttributeKey('KeelForkOf', SearchAttributeType.KEYWORD),
} as const;

export interface SearchAttributeValues {
  status: GoalStatus;
  phase: GoalPhase;
  toolCalls: number;
  planAttempt: number;
  pendingApprovals: number;
  priority: number;
  /** Absent until the goal binds to a host (and in goals without one): nothing is written then. */
  host?: string;
  /** Absent in goals started before keel wrote it (their histories replay without it). */
  costUsd?: number;
}

/** Fixed order, so the upsert command is the same on every replay. */
const fieldsInOrder = [
  'status',
  'phase',
  'toolCalls',
  'planAttempt',
  'pendingApprovals',
  'priority',
  'host',
  'costUsd',
] as const satisfies ReadonlyArray<keyof SearchAttributeValues>;

/** Every attribute that has a value, for the first upsert of a run. */
export function searchAttributeUpdates(values: SearchAttributeValues): SearchAttributeUpdatePair[] {
  return fieldsInOrder
    .filter((field) => values[field] !== undefined)
    .map((field) => updatePair(field, values));
}

/**
 * Only the attributes whose value differs from `previous` (all of them when there is none): each
 * upsert is a history event, so unchanged values are not written again. Compared after
 * normalisation, so 2.4 tool calls then 2 does not count as a change.
 */
export function changedSearchAttributes(
  previous: Partial<SearchAttributeValues> | undefined,
  next: SearchAttributeValues,
): SearchAttributeUpdatePair[] {
  return searchAttributeUpdatesOf(changedFields(previous, next), next);
}

export type SearchAttributeField = (typeof fieldsInOrder)[number];

/** The fields whose value differs from `previous` (all of them when there is none), in order. */
export function changedFields(
  previous: Partial<SearchAttributeValues> | undefined,
  next: SearchAttributeValues,
): SearchAttributeField[] {
  return fieldsInOrder.filter((field) => {
    const value = next[field];
    if (value === undefined) return false; // no host yet: nothing to write (and never a removal)
    const before = previous?.[field];
    return before === undefined || normalise(field, before) !== normalise(field, value);
  });
}

/**
 * KeelToolCalls may lag the exact count by fewer than this many calls; the status query
 * (`keel status`) always has the exact counters.
 */
export const TOOL_CALLS_REFRESH_STEP = 10;

/** Fields that change at every call or model turn: they ride along with other writes. */
const RIDERS: ReadonlySet<SearchAttributeField> = new Set(['toolCalls', 'costUsd']);

/**
 * The fields due for a write, the tool-call count and the cost allowed to lag: they change at
 * every call, and an upsert is an event, so a turn of reads would write one each. Status, phase,
 * plan attempt, pending approvals, priority and host are written as soon as they change, and the
 * count and cost ride along with any of them; alone, the count is written once it lags by
 * `refreshStep` calls or more (or when it was never written), the cost with it, never by itself.
 * Anything else is the same as changedFields.
 */
export function dueFields(
  previous: Partial<SearchAttributeValues> | undefined,
  next: SearchAttributeValues,
  refreshStep: number = TOOL_CALLS_REFRESH_STEP,
): SearchAttributeField[] {
  const changed = changedFields(previous, next);
  if (changed.some((field) => !RIDERS.has(field))) return changed;
  if (!changed.includes('toolCalls')) return [];
  const written = previous?.toolCalls;
  if (written === undefined) return changed;
  const lag = Math.abs(wholeNumber(next.toolCalls) - wholeNumber(written));
  return lag >= refreshStep ? changed : [];
}

/** The update pairs of these fields, with the values' normalised numbers. */
export function searchAttributeUpdatesOf(
  fields: readonly SearchAttributeField[],
  values: SearchAttributeValues,
): SearchAttributeUpdatePair[] {
  return fieldsInOrder.filter((field) => fields.includes(field)).map((field) => updatePair(field, values));
}

/**
 * The values already on the workflow (e.g. `workflowInfo().typedSearchAttributes` after
 * continue-as-new, which carries them over), as a `previous` for changedSearchAttributes.
 */
export function searchAttributeValuesFrom(attributes: TypedSearchAttributes): Partial<SearchAttributeValues> {
  const values: Partial<Record<keyof SearchAttributeValues, string | number>> = {};
  for (const field of fieldsInOrder) {
    const value = attributes.get(KeelSearchAttributes[field]);
    if (value !== undefined) values[field] = value;
  }
  return values as Partial<SearchAttributeValues>;
}

function updatePair(
  field: (typeof fieldsInOrder)[number],
  values: SearchAttributeValues,
): SearchAttributeUpdatePair {
  switch (field) {
    case 'status':
    case 'phase':
      return { key: KeelSearchAttributes[field], value: values[field] };
    case 'toolCalls':
    case 'planAttempt':
    case 'pendingApprovals':
      return { key: KeelSearchAttributes[field], value: wholeNumber(values[field]) };
    case 'priority':
      return { key: KeelSearchAttributes.priority, value: finiteNumber(values.priority) };
    case 'host':
      return { key: KeelSearchAttributes.host, value: values.host ?? '' };
    case 'costUsd':
      return { key: KeelSearchAttributes.costUsd, value: roundedUsd(values.costUsd ?? 0) };
  }
}

function normalise(field: keyof SearchAttributeValues, value: string | number): string | number {
  if (typeof value === 'string') return value;
  if (field === 'costUsd') return roundedUsd(value);
  return field === 'priority' ? finiteNumber(value) : wholeNumber(value);
}

/** A cost to a hundredth of a cent: finer changes are no reason to write. */
function roundedUsd(value: number): number {
  return Math.round(finiteNumber(value) * 10_000) / 10_000;
}

/** An Int attribute refuses fractions and the upsert would fail the workflow task; round instead. */
function wholeNumber(value: number): number {
  return Number.isFinite(value) ? Math.round(value) : 0;
}

/** NaN or Infinity cannot be stored (JSON has neither); 0 is the neutral priority. */
function finiteNumber(value: number): number {
  return Number.isFinite(value) ? value : 0;
}
