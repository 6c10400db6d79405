/**
 * Worker-level defaults a goal reads once at its start through an activity, so the choice is
 * recorded in history and replays identically even if the worker's config changes later.
 */
export interface WorkerDefaults {
  /** Cadence of reflection checkpoints when the goal's input does not set one (0 disables). */
  reflectionCadence?: number;
  /** Whether ledger sinks are configured, so goals only publish when someone listens. */
  ledgerSinks: boolean;
}

export function workerDefaultsFromEnv(env: NodeJS.ProcessEnv, ledgerSinks: boolean): WorkerDefaults {
  const raw = env.KEEL_REFLECTION_CADENCE;
  if (raw === undefined || raw.trim() === '') return { ledgerSinks };
  const cadence = Number(raw);
  if (!Number.isInteger(cadence) || cadence < 0) {
    throw new Error(
      `KEEL_REFLECTION_CADENCE must be a whole number of tool calls (0 disables), got "${raw}"`,
    );
  }
  return { reflectionCadence: cadence, ledgerSinks };
}

export function createWorkerDefaultsActivities(defaults: WorkerDefaults) {
  return {
    workerDefaults(): Promise<WorkerDefaults> {
      return Promise.resolve(defaults);
    },
  };
}
