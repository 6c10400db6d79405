#!/usr/bin/env node
// `npm run worker` and the Docker image: the worker entry point, compiled when dist/ is current
// (see load-keel.js). Its workflow bundle is built from the workflows next to the loaded worker
// module, so compiled worker and compiled workflows (or source and source) always go together.
//
// It starts from a bundle built ahead (src/worker/bundle-file.ts), not by bundling the workflows
// at every start (seconds; docs/performance.md): KEEL_WORKFLOW_BUNDLE as given (set but empty:
// bundle at start, as before); else the bundle in KEEL_WORKFLOW_BUNDLE_DIR (the image's) for this
// worker's encryption and tracing; else one cached under node_modules/.cache, built by the first
// start and again when the workflow code changes.
const { loadKeel } = require('./load-keel');

async function main() {
  if (process.env.KEEL_WORKFLOW_BUNDLE === undefined) {
    const file = await prebuiltBundle();
    // src/worker/run-worker.ts reads it: the one way a bundle reaches runWorker from the environment.
    if (file !== undefined) process.env.KEEL_WORKFLOW_BUNDLE = file;
  }
  await loadKeel('worker').runWorker({
    scriptedScenarioFile: process.env.KEEL_SCRIPTED_SCENARIO || undefined,
  });
}

/** The prebuilt bundle's path, or undefined: then the worker bundles at start, as it always could. */
async function prebuiltBundle() {
  try {
    const { prebuiltWorkflowBundle } = loadKeel('worker/bundle-file');
    return await prebuiltWorkflowBundle({ env: process.env, log: (line) => console.log(line) });
  } catch (error) {
    // A read-only install, a full disk, a malformed setting (the worker reports that one itself).
    const reason = error instanceof Error ? error.message : String(error);
    console.warn(`keel worker: no prebuilt workflow bundle (${reason}); bundling at start`);
    return undefined;
  }
}

main().catch((error) => {
  console.error(`keel worker: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
