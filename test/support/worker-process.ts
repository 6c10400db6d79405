import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { tempDirectory } from './temp-directory';

const ROOT = path.resolve(__dirname, '../..');

export interface WorkerProcess {
  readonly pid: number;
  /** Everything it wrote so far, stdout and stderr (its start log, for one). */
  output(): string;
  /** Resolves with its exit code (null when a signal ended it) once it exits by itself or is stopped. */
  exited(): Promise<number | null>;
  /** kill -9: no shutdown hooks, no goodbye to the server. */
  kill9(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Starts the real worker entry point (src/worker.ts) as its own OS process, so a test can kill it
 * the way a crash would. Resolves once it polls its task queue.
 */
export async function startWorkerProcess(options: {
  address: string;
  taskQueue: string;
  modelBaseUrl: string;
  /**
   * The worker's journal (and backups in a temp folder of their own); when omitted, both are kept
   * beside each goal's workspace, as a worker does by default.
   */
  journalDirectory?: string;
  /** The worker's ANTHROPIC_API_KEY (a test may plant a marker to look for in history). */
  apiKey?: string;
  /** Another worker program (e.g. an example's), relative to the repository; src/worker.ts otherwise. */
  entry?: string;
  /** More variables for the worker (e.g. KEEL_CONFIG). */
  env?: Record<string, string>;
}): Promise<WorkerProcess> {
  const entry = path.join(ROOT, options.entry ?? 'src/worker.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', entry], {
    // An example runs from its own folder (where its keel.config.yaml is); keel from the root.
    cwd: options.entry === undefined ? ROOT : path.dirname(entry),
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TEMPORAL_ADDRESS: options.address,
      KEEL_TASK_QUEUE: options.taskQueue,
      ANTHROPIC_BASE_URL: options.modelBaseUrl,
      ANTHROPIC_API_KEY: options.apiKey ?? 'test-key-of-a-worker-process',
      // Nothing of a test's worker lands in the real ~/.keel; these go when the test exits. A
      // worker given a config file keeps its reflection store (the variable would win over it).
      ...(options.journalDirectory === undefined
        ? {}
        : { KEEL_JOURNAL_DIR: options.journalDirectory, KEEL_BACKUP_DIR: tempDirectory('keel-backups-') }),
      ...(options.env?.KEEL_CONFIG === undefined
        ? { KEEL_REFLECTION_DIR: tempDirectory('keel-reflections-') }
        : {}),
      KEEL_MODEL_REQUESTS: tempDirectory('keel-model-requests-'),
      // Its registry of running goals' workspaces: the test's folder, not /tmp's for good.
      KEEL_STATE_DIRECTORY: process.env.KEEL_STATE_DIRECTORY ?? tempDirectory('keel-state-'),
      // A worker started again after a kill -9 claims its host id once the killed one's beat is
      // old (interval + 2 s grace, host-claim): with the default 10 s, every restart would wait 12.
      KEEL_HEARTBEAT_MS: '1000',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start within 60 s:\n${output}`)), 60_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('polling task queue')) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} during start-up:\n${output}`));
    });
  });
  const stopOnExit = () => child.kill('SIGKILL');
  process.once('exit', stopOnExit);
  return {
    pid: child.pid ?? -1,
    output: () => output,
    exited: () => exit,
    kill9: () => terminate(child, 'SIGKILL', stopOnExit),
    stop: () => terminate(child, 'SIGTERM', stopOnExit),
  };
}

function terminate(child: ChildProcess, signal: NodeJS.Signals, hook: () => void): Promise<void> {
  process.removeListener('exit', hook);
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}
