#!/usr/bin/env node
// `npm run worker`: the worker entry point, compiled when dist/ is current (see load-keel.js).
// Its workflow bundle is built from the workflows next to the loaded worker module, so compiled
// worker and compiled workflows (or source and source) always go together.
const { loadKeel } = require('./load-keel');

loadKeel('worker')
  .runWorker({ scriptedScenarioFile: process.env.KEEL_SCRIPTED_SCENARIO || undefined })
  .catch((error) => {
    console.error(`keel worker: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
