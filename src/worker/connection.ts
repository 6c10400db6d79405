import { NativeConnection, type NativeConnectionOptions } from '@temporalio/worker';
import { connectionSettings } from '../client/connection-settings';
import { assertOneTemporalCopy } from './temporal-copies';

/**
 * How a keel worker reaches Temporal: a connection of your own (made with the @temporalio/worker
 * keel uses; you close it), or where to connect (keel connects, and closes it when the worker
 * stops). Each setting left out comes from the environment (TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE,
 * KEEL_TASK_QUEUE), else the local dev server's defaults, as for `keel worker`.
 */
export interface WorkerConnectionOptions {
  connection?: NativeConnection;
  /** host:port; TEMPORAL_ADDRESS, else 127.0.0.1:7233. Not with `connection`. */
  address?: string;
  /** TLS to the server (e.g. Temporal Cloud): true, or the certificates. Not with `connection`. */
  tls?: NativeConnectionOptions['tls'];
  /** An API key for the server (e.g. Temporal Cloud). Not with `connection`. */
  apiKey?: string;
  /** TEMPORAL_NAMESPACE, else 'default'. */
  namespace?: string;
  /** The shared task queue goals are started on; KEEL_TASK_QUEUE, else 'keel'. */
  taskQueue?: string;
}

export interface WorkerConnection {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  address: string | undefined;
  /** Whether keel made the connection, and so closes it. */
  owned: boolean;
}

/** Bad worker options: one line naming the option. */
export class WorkerOptionsError extends Error {
  override readonly name = 'WorkerOptionsError';
}

/**
 * The options' connection, or a new one to the options' address. A connection from another copy
 * of @temporalio/worker is refused here (TemporalCopiesError), before it could crash natively.
 */
export async function workerConnection(
  options: WorkerConnectionOptions,
  env: NodeJS.ProcessEnv = process.env,
): Promise<WorkerConnection> {
  const given = options.connection;
  if (given !== undefined) {
    const extra = (['address', 'tls', 'apiKey'] as const).filter((name) => options[name] !== undefined);
    if (extra.length > 0)
      throw new WorkerOptionsError(
        `createKeelWorker: give either connection or ${extra.join(', ')}, not both (the connection already says where it connects)`,
      );
  }
  assertOneTemporalCopy(given === undefined ? {} : { connection: given });
  const settings = settingsOf(options, env);
  if (given !== undefined) return { connection: given, ...settings, address: undefined, owned: false };
  const connection = await NativeConnection.connect({
    address: settings.address,
    ...(options.tls === undefined ? {} : { tls: options.tls }),
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
  });
  return { connection, ...settings, owned: true };
}

function settingsOf(options: WorkerConnectionOptions, env: NodeJS.ProcessEnv) {
  const given: Record<string, string> = {};
  for (const name of ['address', 'namespace', 'taskQueue'] as const) {
    const value: unknown = options[name];
    if (value === undefined) continue;
    if (typeof value !== 'string' || value.trim() === '')
      throw new WorkerOptionsError(`createKeelWorker: ${name} must be a non-empty string`);
    given[name] = value;
  }
  return connectionSettings(given, env);
}
