import { parseDuration } from '../workflows/common/duration';
import { budgetSchema, type Budget } from '../workflows/principles/budget';
import type { RuleSpec } from '../workflows/approvals/approval-rule';
import { approvalPolicyFromEnv } from './approval-policy-file';
import type { NotificationDefaults } from '../workflows/approvals/notifications';

/**
 * Worker-level defaults a goal reads once at its start through an activity, so the choice is
 * recorded in history and replays identically even if the worker's config changes later.
 */
export interface WorkerDefaults {
  /** Cadence of reflection checkpoints when the goal's input does not set one (0 disables). */
  reflectionCadence?: number;
  /** Whether ledger sinks are configured, so goals only publish when someone listens. */
  ledgerSinks: boolean;
  /** A budget for goals that set none of their own (per dimension: the goal's limit wins). */
  budget?: Budget;
  /** The team's approval rules (KEEL_APPROVAL_RULES), for every goal this worker starts. */
  approvalRules?: RuleSpec[];
  /**
   * The fleet holds a model request limit (KEEL_MODEL_REQUESTS_PER_MINUTE): model calls go to the
   * model queue Temporal paces (worker/model-queue-worker.ts). Without one they stay on the goal's queue,
   * where the SDK runs an activity its workflow task scheduled at once, without another poll: the
   * model queue cost about 45 ms a call (0.59 to 0.95 of the floor's time in npm run bench).
   */
  sharedModelQueue?: boolean;
  /**
   * The channels that tell approvers a call waits, and when to remind them (KEEL_NOTIFY_*): goals
   * schedule notices only when the worker they started on has some.
   */
  notifications?: NotificationDefaults;
}

export function workerDefaultsFromEnv(env: NodeJS.ProcessEnv, ledgerSinks: boolean): WorkerDefaults {
  const budget = budgetFromEnv(env);
  const approvalRules = approvalPolicyFromEnv(env);
  const raw = env.KEEL_REFLECTION_CADENCE;
  const defaults: WorkerDefaults = {
    ledgerSinks,
    ...(budget ? { budget } : {}),
    ...(approvalRules ? { approvalRules } : {}),
  };
  if (raw === undefined || raw.trim() === '') return defaults;
  const cadence = Number(raw);
  if (!Number.isInteger(cadence) || cadence < 0) {
    throw new Error(
      `KEEL_REFLECTION_CADENCE must be a whole number of tool calls (0 disables), got "${raw}"`,
    );
  }
  return { reflectionCadence: cadence, ...defaults };
}

/**
 * KEEL_BUDGET_MAX_USD (e.g. 2.5), KEEL_BUDGET_MAX_TOKENS (whole number) and
 * KEEL_BUDGET_MAX_WALL_TIME (a duration: 90s, 30m, 2h): a default budget for every goal this
 * worker starts. Unset or empty means no default for that dimension; a bad value stops the worker.
 */
export function budgetFromEnv(env: NodeJS.ProcessEnv): Budget | undefined {
  const read = (name: string, parse: (text: string) => number | undefined, what: string) => {
    const raw = env[name];
    if (raw === undefined || raw.trim() === '') return undefined;
    const value = parse(raw.trim());
    if (value === undefined || !(value > 0)) throw new Error(`${name} must be ${what}, got "${raw}"`);
    return value;
  };
  const maxUsd = read('KEEL_BUDGET_MAX_USD', Number, 'a positive number of US dollars');
  const maxTokens = read(
    'KEEL_BUDGET_MAX_TOKENS',
    (text) => (/^\d+$/.test(text) ? Number(text) : undefined),
    'a positive whole number of tokens',
  );
  const maxWallTimeMs = read('KEEL_BUDGET_MAX_WALL_TIME', parseDuration, 'a duration such as 90s, 30m or 2h');
  if (maxUsd === undefined && maxTokens === undefined && maxWallTimeMs === undefined) return undefined;
  return budgetSchema.parse({
    ...(maxUsd === undefined ? {} : { maxUsd }),
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(maxWallTimeMs === undefined ? {} : { maxWallTimeMs }),
  });
}

export function createWorkerDefaultsActivities(defaults: WorkerDefaults) {
  return {
    workerDefaults(): Promise<WorkerDefaults> {
      return Promise.resolve(defaults);
    },
  };
}
