/**
 * Runs keel's test files with node's test runner. Integration tests share one Temporal dev server
 * started here (127.0.0.1, free ports, stopped on exit) and find it through TEMPORAL_ADDRESS.
 *
 *   tsx scripts/run-tests.ts            all tests
 *   tsx scripts/run-tests.ts unit       unit tests only (no server)
 *   tsx scripts/run-tests.ts FILE...    just those files
 */
import { spawn } from 'node:child_process';
import { glob } from 'tinyglobby';
import { startDevServer } from '../src/dev-server/dev-server';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const unitOnly = args[0] === 'unit';
  const files = unitOnly || args.length === 0 ? await defaultFiles(unitOnly) : args;
  if (files.length === 0) throw new Error('no test files found');
  const needsServer = files.some((file) => !file.includes('test/unit/'));
  const server = needsServer ? await startDevServer({ ephemeral: true }) : undefined;
  try {
    const env = { ...process.env, ...(server ? { TEMPORAL_ADDRESS: server.address } : {}) };
    const code = await run(
      process.execPath,
      ['--import', 'tsx', '--test', '--test-reporter=spec', ...files],
      env,
    );
    process.exitCode = code;
  } finally {
    await server?.stop();
  }
}

async function defaultFiles(unitOnly: boolean): Promise<string[]> {
  const patterns = unitOnly ? ['test/unit/**/*.test.ts'] : ['test/**/*.test.ts'];
  return (await glob(patterns, { ignore: ['node_modules/**'] })).sort();
}

/**
 * Runs the test runner; a run stopped by SIGINT or SIGTERM passes the signal on, so the test
 * processes remove what they made (test/support/temp-directory.ts) and the dev server is stopped
 * after them, instead of both outliving this process.
 */
function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: 'inherit', env });
    const forward = (signal: NodeJS.Signals) => child.kill(signal);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve(code ?? (signal ? 1 : 0));
    });
  });
}

main().catch((error: unknown) => {
  console.error(`run-tests: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
