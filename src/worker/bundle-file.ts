import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import {
  ARRIVAL_MARKING_PAYLOAD_CONVERTER_PATH,
  dataConverterFromEnv,
  ENCRYPTING_FAILURE_CONVERTER_PATH,
} from '../codec/data-converter';
import type * as TracingModule from '../tracing/tracing';
import { tracingExporters } from '../tracing/tracing-settings';
import { workflowBundlerOptions } from './bundle-options';

/**
 * Workflow bundles built ahead, as files, so a worker started by `npm run worker` or the Docker
 * image loads one (KEEL_WORKFLOW_BUNDLE) instead of bundling for seconds at every start.
 *
 * A bundle holds more than the workflow code: the failure and payload converters when the worker
 * encrypts (a bundle without them would write failure messages to history in plain text) and the
 * tracing interceptors when it traces (without them the goal spans vanish). The SDK takes neither
 * from the worker once a bundle is given, so there is one bundle per combination, named by it.
 */
export interface BundleVariant {
  encrypted: boolean;
  traced: boolean;
}

/** Next to this module, like the worker's: compiled workflows for a compiled worker, source for source. */
const WORKFLOWS_PATH = require.resolve('../workflows');
/** The tree the bundle is built from (src/ or dist/): a file newer than the bundle makes it stale. */
const SOURCE_ROOT = path.resolve(__dirname, '..');

export const ALL_BUNDLE_VARIANTS: readonly BundleVariant[] = [
  { encrypted: false, traced: false },
  { encrypted: true, traced: false },
  { encrypted: false, traced: true },
  { encrypted: true, traced: true },
];

/** The variant a worker with this environment needs (the same reading createKeelWorker makes). */
export function bundleVariantOf(env: NodeJS.ProcessEnv): BundleVariant {
  return {
    encrypted: dataConverterFromEnv(env).failureConverterPath !== undefined,
    traced: tracingExporters(env).length > 0,
  };
}

export function bundleFileName(variant: BundleVariant): string {
  return `workflow-bundle${variant.encrypted ? '.encrypted' : ''}${variant.traced ? '.traced' : ''}.js`;
}

/** Builds one variant's bundle into `file`, whole or not at all (a rename: two starts never read half). */
export async function writeWorkflowBundle(file: string, variant: BundleVariant): Promise<void> {
  const plugins = variant.traced ? tracingPlugins() : [];
  const { code } = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    ...workflowBundlerOptions,
    ...(variant.encrypted
      ? {
          failureConverterPath: ENCRYPTING_FAILURE_CONVERTER_PATH,
          payloadConverterPath: ARRIVAL_MARKING_PAYLOAD_CONVERTER_PATH,
        }
      : {}),
    plugins,
    logger: new DefaultLogger('WARN'),
  });
  mkdirSync(path.dirname(file), { recursive: true });
  const partial = `${file}.${process.pid}.partial`;
  writeFileSync(partial, code);
  renameSync(partial, file);
}

/** Every variant into `directory` (the Docker image's build step): whatever a container turns on. */
export async function writeWorkflowBundles(directory: string): Promise<string[]> {
  const files: string[] = [];
  for (const variant of ALL_BUNDLE_VARIANTS) {
    const file = path.join(directory, bundleFileName(variant));
    await writeWorkflowBundle(file, variant);
    files.push(file);
  }
  return files;
}

/**
 * The bundle file this worker should load, or undefined to bundle at start as before:
 * - KEEL_WORKFLOW_BUNDLE_DIR set (the Docker image): its bundle for this variant, used as it is
 *   (it was built with the image; the directory need not be writable);
 * - otherwise a cache beside the dependencies, per source tree and SDK version, built when it is
 *   missing or older than a file of the tree it is built from.
 */
export async function prebuiltWorkflowBundle(options: {
  env: NodeJS.ProcessEnv;
  log: (line: string) => void;
  cacheDirectory?: string;
}): Promise<string | undefined> {
  const variant = bundleVariantOf(options.env);
  const configured = options.env.KEEL_WORKFLOW_BUNDLE_DIR?.trim();
  if (configured) {
    const file = path.resolve(configured, bundleFileName(variant));
    if (existsSync(file)) return file;
    options.log(`keel worker: no ${bundleFileName(variant)} in KEEL_WORKFLOW_BUNDLE_DIR (${configured})`);
    return undefined;
  }
  const file = path.join(options.cacheDirectory ?? defaultCacheDirectory(), bundleFileName(variant));
  const builtAt = modifiedMs(file);
  if (builtAt !== undefined && builtAt >= newestModifiedMs(SOURCE_ROOT)) return file;
  options.log(
    `keel worker: building the workflow bundle into ${file} (${builtAt === undefined ? 'none yet' : 'workflow code changed'}); later starts load it`,
  );
  await writeWorkflowBundle(file, variant);
  return file;
}

/**
 * node_modules/.cache, where build tools keep theirs: ignored by git, gone with node_modules. One
 * directory per tree the bundle is built from (src/ and dist/ bundles differ; two checkouts may
 * share node_modules through a link) and per SDK version (its workflow runtime is in the bundle).
 */
export function defaultCacheDirectory(): string {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const sdk = (require('@temporalio/worker/package.json') as { version: string }).version;
  const tree = createHash('sha256').update(SOURCE_ROOT).digest('hex').slice(0, 12);
  const root = path.resolve(SOURCE_ROOT, '..');
  const name = `${path.basename(SOURCE_ROOT)}-${tree}-sdk-${sdk}`;
  return path.join(root, 'node_modules', '.cache', 'keel', 'workflow-bundles', name);
}

/** The tracing plugins' workflow modules are all a bundle needs: no exporter is made. */
function tracingPlugins() {
  // require: OpenTelemetry is loaded only for a traced bundle (see process-tracing.ts).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { createTracing } = require('../tracing/tracing') as typeof TracingModule;
  return [...createTracing({ spanProcessors: [] }).plugins];
}

function modifiedMs(file: string): number | undefined {
  try {
    return statSync(file).mtimeMs;
  } catch {
    return undefined;
  }
}

/** The newest file under `root` (the whole tree: workflows import from beside them too). */
function newestModifiedMs(root: string): number {
  let newest = 0;
  for (const entry of readdirSync(root, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const changedAt = modifiedMs(path.join(entry.parentPath ?? entry.path, entry.name)) ?? 0;
    if (changedAt > newest) newest = changedAt;
  }
  return newest;
}
