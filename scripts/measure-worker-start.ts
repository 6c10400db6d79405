/**
 * How long `npm run worker` (node bin/keel-worker.js) takes from spawn to "polling", three ways:
 * bundling the workflows at start (KEEL_WORKFLOW_BUNDLE set empty: what every start did before
 * the prebuilt bundle), the first start with an empty bundle cache (it builds the bundle), and a
 * later start (it loads the cached bundle). Samples interleave the three; run it on a current
 * dist/ (npm run build) to measure the compiled worker.
 *
 *   node --import tsx scripts/measure-worker-start.ts [SAMPLES]
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startDevServer } from '../src/dev-server/dev-server';
import type * as BundleFileModule from '../src/worker/bundle-file';

const REPOSITORY = path.resolve(__dirname, '..');
// The launcher's own choice of dist/ or src/, asked rather than copied (it is plain JavaScript).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { compiledIsCurrent, loadKeel } = require('../bin/load-keel.js') as {
  compiledIsCurrent: () => boolean;
  loadKeel: (module: string) => unknown;
};

async function main(): Promise<void> {
  const samples = Number(process.argv[2] ?? 3);
  const server = await startDevServer({ ephemeral: true });
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'keel-worker-start-'));
  // The cache the worker will use: the module it loads (dist/ or src/) names it.
  const cache = (loadKeel('worker/bundle-file') as typeof BundleFileModule).defaultCacheDirectory();
  const ways = {
    bundlingAtStart: [] as number[],
    firstStartBuildsBundle: [] as number[],
    cachedBundle: [] as number[],
  };
  console.log(`bundle cache ${cache}`);
  console.log(`worker from ${compiledIsCurrent() ? 'dist/ (compiled)' : 'src/ through tsx'}`);
  try {
    for (let sample = 0; sample < samples; sample++) {
      const base = {
        TEMPORAL_ADDRESS: server.address,
        ANTHROPIC_API_KEY: 'no-model-call-is-made',
        KEEL_REFLECTION_STORE: 'memory',
        KEEL_MODEL_REQUESTS: path.join(scratch, 'requests'),
        KEEL_TASK_QUEUE: `start-${sample}`,
      };
      ways.bundlingAtStart.push(await timeToPolling({ ...base, KEEL_WORKFLOW_BUNDLE: '' }));
      rmSync(cache, { recursive: true, force: true });
      ways.firstStartBuildsBundle.push(await timeToPolling(base));
      ways.cachedBundle.push(await timeToPolling(base));
    }
  } finally {
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  }
  for (const [way, times] of Object.entries(ways)) {
    const sorted = [...times].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
    console.log(`${way}: median ${median.toFixed(0)} ms (${sorted.map((ms) => ms.toFixed(0)).join(', ')})`);
  }
}

/** Spawns the worker as `npm run worker` runs it and stops it once it polls. */
function timeToPolling(environment: Record<string, string>): Promise<number> {
  const started = performance.now();
  const env: NodeJS.ProcessEnv = { ...process.env, ...environment };
  if (!('KEEL_WORKFLOW_BUNDLE' in environment)) delete env.KEEL_WORKFLOW_BUNDLE;
  const child = spawn(process.execPath, ['bin/keel-worker.js'], { cwd: REPOSITORY, env });
  let output = '';
  return new Promise((resolve, reject) => {
    const watch = (chunk: Buffer): void => {
      output += chunk.toString();
      if (!output.includes('polling task queue')) return;
      const ms = performance.now() - started;
      child.stdout.off('data', watch);
      child.once('exit', () => resolve(ms));
      child.kill('SIGTERM');
    };
    child.stdout.on('data', watch);
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      if (!output.includes('polling task queue')) reject(new Error(`worker exited (${code}): ${output}`));
    });
  });
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
