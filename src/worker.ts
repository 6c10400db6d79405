/**
 * The worker entry point: run as the main module it runs a worker until SIGINT/SIGTERM (scripted
 * when KEEL_SCRIPTED_SCENARIO names a scenario); imported, it is the worker's API (createKeelWorker,
 * runWorker, ...), whose parts live in src/worker/.
 */
import { runWorker } from './worker/run-worker';

export { createKeelWorker, WORKFLOWS_PATH } from './worker/keel-worker';
export type { KeelWorkerOptions } from './worker/keel-worker-options';
export { keelHostOf, type KeelHost } from './worker/host-worker';
export { createToolRegistry, keelToolsOf } from './worker/worker-tools';
export { anthropicFromEnvironment } from './worker/model-client';
export { runWorker, type RunWorkerOptions } from './worker/run-worker';

if (require.main === module) {
  runWorker({ scriptedScenarioFile: process.env.KEEL_SCRIPTED_SCENARIO || undefined }).catch(
    (error: unknown) => {
      console.error(`keel worker: ${error instanceof Error ? error.message : String(error)}`);
      process.exit(1);
    },
  );
}
