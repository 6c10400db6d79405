import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleFileName, writeWorkflowBundle } from '../../src/worker/bundle-file';
import { stopOwnServer, tempDirectory, temporalAddress } from '../support/temporal';

after(stopOwnServer);

const ROOT = path.resolve(__dirname, '../..');
const PLAIN = bundleFileName({ encrypted: false, traced: false });

/** `npm run worker`'s command, until it polls (true) or exits first (false), with what it wrote. */
async function startWorker(env: NodeJS.ProcessEnv): Promise<{ polled: boolean; output: string }> {
  const child = spawn(process.execPath, ['bin/keel-worker.js'], {
    cwd: ROOT,
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: await temporalAddress(),
      KEEL_TASK_QUEUE: `prebuilt-${process.pid}-${Date.now()}`,
      ANTHROPIC_API_KEY: 'no-model-call-is-made',
      KEEL_REFLECTION_STORE: 'memory',
      KEEL_MODEL_REQUESTS: tempDirectory('keel-requests-'),
      ...env,
    },
  });
  let output = '';
  return new Promise((resolve) => {
    const watch = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('polling task queue')) child.kill('SIGTERM');
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', watch);
    child.once('exit', () => resolve({ polled: output.includes('polling task queue'), output }));
  });
}

test(
  'npm run worker starts from the bundle in KEEL_WORKFLOW_BUNDLE_DIR, not by bundling',
  { timeout: 180_000 },
  async () => {
    const { KEEL_WORKFLOW_BUNDLE: _ignored, ...inherited } = process.env;
    // A file that is no bundle: a worker that loads it fails; one that bundled itself would poll.
    const broken = tempDirectory('keel-bundles-broken-');
    writeFileSync(path.join(broken, PLAIN), 'not a workflow bundle');
    const refused = await startWorker({ ...inherited, KEEL_WORKFLOW_BUNDLE_DIR: broken });
    assert.equal(refused.polled, false, refused.output);

    const built = tempDirectory('keel-bundles-');
    await writeWorkflowBundle(path.join(built, PLAIN), { encrypted: false, traced: false });
    const started = await startWorker({ ...inherited, KEEL_WORKFLOW_BUNDLE_DIR: built });
    assert.equal(started.polled, true, started.output);
    assert.doesNotMatch(started.output, /building the workflow bundle|bundling at start/);
  },
);
