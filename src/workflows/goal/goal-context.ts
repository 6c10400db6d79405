import type { z } from 'zod';
import type { ActivityProxies } from './activity-proxies';
import type { GoalState } from './goal-state';
import type { LedgerEventKind } from '../common/ledger';

export interface StructuredRequest<Schema extends z.ZodType> {
  purpose: string;
  prompt: string;
  toolName: string;
  description: string;
  schema: Schema;
  model?: string;
  /** For kind-tagged outputs (seed 004): unknown kinds and prose become this kind. */
  fallbackKind?: string;
}

export type StructuredAnswer<Value> =
  { ok: true; value: Value; rawFallback: boolean } | { ok: false; error: string };

/**
 * What the goal's parts (planning, assessment, reflection) share with the main loop: the state,
 * the activities, the ledger and the notes channel to the model. Keeps each part in its own file.
 */
export interface GoalContext {
  readonly state: GoalState;
  readonly activities: ActivityProxies;
  readonly workflowId: string;
  /** Appends a ledger event (with the workflow clock's time). */
  record(kind: LedgerEventKind, summary: string, data?: Record<string, unknown>): void;
  /** A note for the model, given before its next turn. */
  note(text: string): void;
  /** A structured model answer through a forced tool call, parsed by the one structured-output parser. */
  structured<Schema extends z.ZodType>(
    options: StructuredRequest<Schema>,
  ): Promise<StructuredAnswer<z.output<Schema>>>;
}
