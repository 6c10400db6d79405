import { Runtime } from '@temporalio/worker';
import { randomUUID } from 'node:crypto';

/**
 * How often a keel worker tells Temporal it is alive (the SDK's worker heartbeats, read back with
 * ListWorkers): `keel hosts` and the host claim at start judge liveness by it, so a host that dies
 * is seen as missing within about this long. The SDK's own default is a minute.
 */
export const DEFAULT_HEARTBEAT_INTERVAL_MS = 10_000;

/** The SDK accepts 1 s to 60 s (0 turns heartbeats off). */
const HEARTBEAT_RANGE_MS = { min: 1_000, max: 60_000 } as const;

export class HeartbeatSettingError extends Error {
  override readonly name = 'HeartbeatSettingError';
}

/**
 * The heartbeat interval of the process's Temporal runtime, installing keel's (KEEL_HEARTBEAT_MS,
 * else 10 s) when no runtime exists yet. The runtime is per process and made with the first
 * connection: an embedder that made one first keeps its own interval, which is then reported as
 * is (0 when its heartbeats are off).
 */
export function ensureWorkerHeartbeats(env: NodeJS.ProcessEnv = process.env): number {
  if (Runtime._instance === undefined) {
    Runtime.install({ ...Runtime.defaultOptions, workerHeartbeatInterval: configuredInterval(env) });
  }
  return Runtime.instance().options.runtimeOptions.workerHeartbeatIntervalMillis ?? 0;
}

function configuredInterval(env: NodeJS.ProcessEnv): number {
  const raw = env.KEEL_HEARTBEAT_MS;
  if (raw === undefined || raw.trim() === '') return DEFAULT_HEARTBEAT_INTERVAL_MS;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < HEARTBEAT_RANGE_MS.min || value > HEARTBEAT_RANGE_MS.max)
    throw new HeartbeatSettingError(
      `KEEL_HEARTBEAT_MS=${raw}: a whole number of milliseconds from ${HEARTBEAT_RANGE_MS.min} to ${HEARTBEAT_RANGE_MS.max}`,
    );
  return value;
}

/** This process's instance id among the workers of its host id (in its identity and tool results). */
export const WORKER_INSTANCE_ID = randomUUID().slice(0, 8);
