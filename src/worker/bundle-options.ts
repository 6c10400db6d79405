import type { BundleOptions } from '@temporalio/worker';

type WebpackConfigHook = NonNullable<BundleOptions['webpackConfigHook']>;

/** The JavaScript version workflow TypeScript is compiled to in a bundle: tsc's for dist/ too. */
export const WORKFLOW_BUNDLE_TARGET = 'es2022';

/**
 * The SDK's bundler compiles workflow TypeScript with swc to es2017, so a bundle built from src/
 * runs every object spread, optional chain and class field through helpers (`_object_spread`),
 * while a bundle built from dist/ (JavaScript tsc compiled to ES2022, which swc leaves alone) runs
 * them natively. Replaying the last 30 runs of a recorded 1,000-call goal took 10.8 s of CPU with
 * the es2017 bundle and 9.5 s with this hook (medians of 4). The hook gives swc tsc's target, so a
 * worker run from source, the bench and a compiled worker run the same code. The semantics are
 * the same, so histories replay the same either way.
 */
const compileToTscTarget: WebpackConfigHook = (config) => {
  for (const rule of config.module?.rules ?? []) {
    const use = typeof rule === 'object' && rule !== null ? (rule as { use?: unknown }).use : undefined;
    if (typeof use !== 'object' || use === null || Array.isArray(use)) continue;
    const { loader, options } = use as { loader?: unknown; options?: { jsc?: { target?: string } } };
    if (typeof loader === 'string' && loader.includes('swc-loader') && options?.jsc) {
      options.jsc.target = WORKFLOW_BUNDLE_TARGET;
    }
  }
  return config;
};

/** Set to 1, a worker that bundles at start logs webpack's whole report, as the SDK alone does. */
export const BUNDLE_STATS_VARIABLE = 'KEEL_BUNDLE_STATS';

type WebpackPlugin = NonNullable<NonNullable<Parameters<WebpackConfigHook>[0]['plugins']>[number]>;

/**
 * webpack's report, which the SDK logs at INFO when a worker bundles at start, as its summary line
 * alone ("compiled successfully in 16971 ms"): the whole report is some fifteen lines of module
 * statistics before the worker says anything of its own. Errors and warnings are still reported
 * in full (the SDK logs an errored build's report at ERROR). The SDK passes its own options to
 * `stats.toString`, so the report's options are changed where webpack normalises them.
 */
const summaryReportOnly: WebpackConfigHook = (config) => {
  if (process.env[BUNDLE_STATS_VARIABLE] === '1') return config;
  const name = 'keel-summary-report';
  const plugin: WebpackPlugin = {
    apply(compiler) {
      compiler.hooks.compilation.tap(name, (compilation) => {
        compilation.hooks.statsNormalize.tap(name, (options, context) => {
          if (!context.forToString) return;
          Object.assign(options, {
            all: false,
            timings: true,
            errors: true,
            errorDetails: true,
            errorsCount: true,
            warnings: true,
            warningsCount: true,
          });
        });
      });
    },
  };
  config.plugins = [...(config.plugins ?? []), plugin];
  return config;
};

/**
 * For every keel workflow bundle: `bundleWorkflowCode({ workflowsPath, ...workflowBundlerOptions })`
 * or a worker's `bundlerOptions` when it bundles at start.
 */
export const workflowBundlerOptions = {
  webpackConfigHook: (config: Parameters<WebpackConfigHook>[0]) =>
    summaryReportOnly(compileToTscTarget(config)),
  /**
   * Modules evaluated once per reusable V8 context and shared by every goal in it, instead of once
   * per goal each time a goal is created or rebuilt from history (issue 41). Only modules whose
   * module scope keeps no per-goal state: the SDK deep-freezes them after loading them.
   * - workflows/common/ed25519: its own scope defines a function; @noble/curves and @noble/hashes,
   *   which it imports, build frozen curve tables with BigInt math at load (the cost shared) and
   *   cache precomputations in module WeakMaps keyed by those points: pure math, the same for every
   *   goal. Evaluating them took 3.8 ms of the ~200 ms of CPU a rebuilt goal costs (profiled by
   *   scripts/bench/context-cost.ts). It is named rather than '@noble/curves/ed25519.js', which
   *   webpack drops as side-effect free (the package says so) when the SDK's preload only
   *   requires it.
   * zod is not here: it installs its default locale and members on its prototypes at the first
   * construction of each schema type, which the freeze makes throw (docs/performance.md).
   */
  preloadModules: [require.resolve('../workflows/common/ed25519')],
};
