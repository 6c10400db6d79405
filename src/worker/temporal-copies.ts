import { NativeConnection } from '@temporalio/worker';
import path from 'node:path';

/**
 * One copy of Temporal per process. A NativeConnection belongs to the native runtime of the
 * @temporalio/worker that made it: handed to another copy's Worker, it panics in Rust ("there is
 * no reactor running, must be called from the context of a Tokio 1.x runtime") and takes the
 * process down. And the worker's bundler adds workflow modules of its own, resolved from the
 * worker package: if they find another @temporalio/workflow than keel's workflows import, the
 * bundle holds two, and the workflow sandbox breaks later in obscure ways. A second copy comes
 * from installing keel with `file:` (keel keeps its own node_modules) or from a project pinning
 * another version; with keel's peer dependencies installed once, npm shares one copy.
 * (A @temporalio/workflow merely loaded in the main context, as some plugins do, harms nothing:
 * only the bundle's counts.) This check runs before anything is connected or bundled.
 */

export type TemporalPackage = '@temporalio/worker' | '@temporalio/workflow';

/** Two copies of a Temporal package in one process: one line naming both and the fix. */
export class TemporalCopiesError extends Error {
  override readonly name = 'TemporalCopiesError';
  constructor(
    readonly packageName: TemporalPackage,
    /** The other copy's folder, and whose it is. */
    readonly other: string,
    readonly keels: string,
  ) {
    super(
      `keel: two copies of ${packageName}: ${other} and ${keels} (keel's); ` +
        `install keel's peer dependencies once in your project (npm install, then npm dedupe; ` +
        `with a file: install of keel, delete keel's own node_modules) so both use one copy`,
    );
  }
}

/** The folder of the package a resolved file belongs to: `.../node_modules/@temporalio/worker`. */
export function packageRootOf(file: string, packageName: string): string | undefined {
  const marker = `${path.sep}node_modules${path.sep}${packageName.split('/').join(path.sep)}${path.sep}`;
  const at = file.lastIndexOf(marker);
  return at < 0 ? undefined : file.slice(0, at + marker.length - 1);
}

/** Where code in `from` finds a package (symlinks resolved, as Node does for its module cache). */
export function copyResolvedFrom(packageName: TemporalPackage, from: string): string {
  return path.dirname(require.resolve(`${packageName}/package.json`, { paths: [from] }));
}

/** Roots of every copy of the package that this process has loaded. */
export function loadedCopies(
  packageName: string,
  cache: NodeJS.Dict<NodeJS.Module> = require.cache,
): string[] {
  const roots = new Set<string>();
  for (const file of Object.keys(cache)) {
    const root = packageRootOf(file, packageName);
    if (root !== undefined) roots.add(root);
  }
  return [...roots];
}

/** The @temporalio/worker a foreign connection came from: the loaded module whose class made it. */
function copyThatMade(connection: object, cache: NodeJS.Dict<NodeJS.Module>): string | undefined {
  for (const [file, module] of Object.entries(cache)) {
    const exported = (module?.exports as { NativeConnection?: unknown } | undefined)?.NativeConnection;
    if (exported !== undefined && exported === connection.constructor)
      return packageRootOf(file, '@temporalio/worker') ?? path.dirname(file);
  }
  return undefined;
}

/**
 * Throws TemporalCopiesError when the given connection was made by another @temporalio/worker
 * than keel's, when this process has loaded another copy of @temporalio/worker, or when keel's
 * @temporalio/worker would bundle another @temporalio/workflow than keel's workflows import.
 */
export function assertOneTemporalCopy(
  options: { connection?: object; cache?: NodeJS.Dict<NodeJS.Module>; keelDirectory?: string } = {},
): void {
  const cache = options.cache ?? require.cache;
  const keelDirectory = options.keelDirectory ?? __dirname;
  const worker = copyResolvedFrom('@temporalio/worker', keelDirectory);
  if (options.connection !== undefined && !(options.connection instanceof NativeConnection)) {
    const theirs = copyThatMade(options.connection, cache);
    throw new TemporalCopiesError(
      '@temporalio/worker',
      theirs === undefined ? "another copy (your NativeConnection's)" : `${theirs} (your NativeConnection's)`,
      worker,
    );
  }
  const loaded = loadedCopies('@temporalio/worker', cache).find((root) => root !== worker);
  if (loaded !== undefined)
    throw new TemporalCopiesError('@temporalio/worker', `${loaded} (also loaded)`, worker);
  const workflow = copyResolvedFrom('@temporalio/workflow', keelDirectory);
  const bundled = copyResolvedFrom('@temporalio/workflow', worker);
  if (bundled !== workflow)
    throw new TemporalCopiesError(
      '@temporalio/workflow',
      `${bundled} (what @temporalio/worker bundles)`,
      workflow,
    );
}
