import type * as TracingModule from './tracing';
import type { KeelTracing } from './tracing';
import { tracingExporters } from './tracing-settings';

let tracingOfProcess: KeelTracing | undefined | null = null;

/**
 * The tracing of this process from its environment, made once, shared by its workers and clients.
 * OpenTelemetry is loaded only when the environment turns tracing on (it is off by default): its
 * SDK and exporter are a fifth of what a worker loads at start.
 */
export function processTracing(env: NodeJS.ProcessEnv = process.env): KeelTracing | undefined {
  if (tracingOfProcess === null) {
    if (tracingExporters(env).length === 0) {
      tracingOfProcess = undefined;
      return undefined;
    }
    // require, not import(): the launcher's source path (tsx/cjs) cannot resolve a dynamic import.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const { tracingFromEnv } = require('./tracing') as typeof TracingModule;
    const tracing = tracingFromEnv(env);
    // A process whose work is done exports what is buffered (a signal-stopped worker gets here too).
    if (tracing) process.once('beforeExit', () => void tracing.shutdown());
    tracingOfProcess = tracing;
  }
  return tracingOfProcess;
}
