import type { z } from 'zod';
import type { KeelActivities } from '../../../activities';
import type { ActivityProxies } from '../lifecycle/activity-proxies';
import type { GoalState } from '../lifecycle/state';
import type { LedgerEventKind } from '../../common/ledger';

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
  /**
   * Runs backups and restores on the goal's workspace host (waiting while it is away), or on the
   * shared queue before the goal is bound.
   */
  onWorkspaceHost<T>(call: (activities: WorkspaceActivities) => Promise<T>): Promise<T>;
  /** A note for the model, given before its next turn. */
  note(text: string): void;
  /** A structured model answer through a forced tool call, parsed by the one structured-output parser. */
  structured<Schema extends z.ZodType>(
    options: StructuredRequest<Schema>,
  ): Promise<StructuredAnswer<z.output<Schema>>>;
}

export type WorkspaceActivities = Pick<
  KeelActivities,
  'backupWorkspace' | 'restoreWorkspace' | 'restoreForkWorkspace' | 'planGoalFork'
>;
