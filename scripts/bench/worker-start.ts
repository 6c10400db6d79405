import type { BenchEnvironment } from './bench-environment';
import { spread, type Spread } from './stats';
import { ensureCompiled, prebuiltBundleFile, startWorkerProcess, WorkerLaunch } from './worker-process';

export interface StartTimeResult {
  /** `node bin/keel-worker.js` on a current dist/ with KEEL_WORKFLOW_BUNDLE, spawn to "polling". */
  compiledWithBundleMs: Spread;
  /** The same without a prebuilt bundle: the worker bundles dist/workflows at start. */
  compiledBundlingMs: Spread;
  /** `node --import tsx src/worker.ts` with the prebuilt bundle: the source, compiled by tsx. */
  sourceWithBundleMs: Spread;
  samples: number;
}

/**
 * Worker start time, the ways a worker is started: compiled with a prebuilt bundle (production),
 * compiled bundling at start, and from source with the bundle. Samples interleave the three.
 */
export async function measureWorkerStart(
  environment: BenchEnvironment,
  samples: number,
  log: (line: string) => void,
): Promise<StartTimeResult> {
  ensureCompiled(log);
  const bundlePath = prebuiltBundleFile(environment);
  const compiledWithBundle: number[] = [];
  const compiledBundling: number[] = [];
  const sourceWithBundle: number[] = [];
  const ways = [
    [WorkerLaunch.Compiled, bundlePath, compiledWithBundle],
    [WorkerLaunch.Compiled, undefined, compiledBundling],
    [WorkerLaunch.Source, bundlePath, sourceWithBundle],
  ] as const;
  for (let sample = 0; sample < samples; sample++) {
    for (const [launch, bundle, into] of ways) {
      if (launch === WorkerLaunch.Compiled) ensureCompiled(log); // never a tsx start counted as compiled
      const worker = await startWorkerProcess(environment, `bench-start-${Date.now()}`, launch, bundle);
      into.push(worker.startMs);
      await worker.stop();
    }
  }
  return {
    compiledWithBundleMs: spread(compiledWithBundle),
    compiledBundlingMs: spread(compiledBundling),
    sourceWithBundleMs: spread(sourceWithBundle),
    samples,
  };
}
