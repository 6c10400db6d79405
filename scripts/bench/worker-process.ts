import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { BenchEnvironment } from './bench-environment';

const REPOSITORY = path.resolve(__dirname, '../..');

/**
 * How a worker process is started: `compiled` as `npm run worker` and the Docker image start it
 * (bin/keel-worker.js, which runs dist/ when current), `source` through tsx (compiled at start).
 */
export const WorkerLaunch = { Compiled: 'compiled', Source: 'source' } as const;
export type WorkerLaunch = (typeof WorkerLaunch)[keyof typeof WorkerLaunch];

const LAUNCH_ARGUMENTS: Record<WorkerLaunch, string[]> = {
  [WorkerLaunch.Compiled]: ['bin/keel-worker.js'],
  [WorkerLaunch.Source]: ['--import', 'tsx', 'src/worker.ts'],
};

/** A keel worker in a process of its own, for start time and memory. */
export interface WorkerProcess {
  readonly child: ChildProcess;
  readonly startMs: number;
  rssBytes(): number;
  stop(): Promise<void>;
}

export async function startWorkerProcess(
  environment: BenchEnvironment,
  taskQueue: string,
  launch: WorkerLaunch,
  bundlePath: string | undefined,
  extraEnvironment: Record<string, string> = {},
): Promise<WorkerProcess> {
  const started = performance.now();
  const child = spawn(process.execPath, LAUNCH_ARGUMENTS[launch], {
    cwd: REPOSITORY,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: {
      ...process.env,
      TEMPORAL_ADDRESS: environment.server.address,
      KEEL_TASK_QUEUE: taskQueue,
      ANTHROPIC_API_KEY: 'loopback-needs-no-key',
      ANTHROPIC_BASE_URL: environment.model.url,
      KEEL_JOURNAL_DIR: environment.directory('worker-journal'),
      KEEL_BACKUP_DIR: environment.directory('worker-backups'),
      KEEL_MODEL_REQUESTS: environment.directory('worker-model-requests'),
      KEEL_REFLECTION_STORE: 'memory',
      KEEL_WORKFLOW_BUNDLE: bundlePath ?? '',
      KEEL_FROM_SOURCE: '', // the launcher's own choice: dist/, which ensureCompiled made current
      ...extraEnvironment,
    },
  });
  let output = '';
  const ready = new Promise<void>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`worker did not start within 120 s: ${output}`)),
      120_000,
    );
    const watch = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('polling task queue')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', watch);
    child.stderr?.on('data', watch);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited (${code}) before polling: ${output}`));
    });
  });
  try {
    await ready;
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  const startMs = performance.now() - started;
  return {
    child,
    startMs,
    rssBytes: () => {
      const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
      const match = /VmRSS:\s+(\d+) kB/.exec(status);
      return match ? Number(match[1]) * 1024 : Number.NaN;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        const force = setTimeout(() => child.kill('SIGKILL'), 10_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        child.kill('SIGTERM');
      }),
  };
}

/**
 * Builds dist/ (`npm run build`) when the launcher would not run it: missing, or older than a
 * source file (bin/load-keel.js decides; it is asked, not copied). Throws when it stays stale.
 */
export function ensureCompiled(log: (line: string) => void): void {
  if (compiledIsCurrent()) return;
  log('bench: compiling TypeScript to dist/ (npm run build) for the compiled worker start');
  const build = spawnSync('npm', ['run', '-s', 'build'], { cwd: REPOSITORY, encoding: 'utf8' });
  if (build.status !== 0)
    throw new Error(`npm run build failed (${build.status}): ${build.stdout}${build.stderr}`);
  if (!compiledIsCurrent()) throw new Error('dist/ is still older than src/ after npm run build');
}

function compiledIsCurrent(): boolean {
  const launcher = JSON.stringify(path.join(REPOSITORY, 'bin/load-keel.js'));
  const answer = spawnSync(process.execPath, ['-p', `require(${launcher}).compiledIsCurrent()`], {
    encoding: 'utf8',
  });
  return answer.stdout.trim() === 'true';
}

const bundleFiles = new WeakMap<BenchEnvironment, string>();

/**
 * The environment's workflow bundle as a file, for a worker process's KEEL_WORKFLOW_BUNDLE (what
 * a production worker loads): written once per environment, however many measurements start one.
 */
export function prebuiltBundleFile(environment: BenchEnvironment): string {
  const written = bundleFiles.get(environment);
  if (written !== undefined) return written;
  const file = path.join(environment.directory('bundle'), 'workflow-bundle.js');
  writeFileSync(file, environment.keelBundle.code);
  bundleFiles.set(environment, file);
  return file;
}
