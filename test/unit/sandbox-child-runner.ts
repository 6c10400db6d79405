// Runs one sandboxed command in a process of its own and prints the result as JSON, so a test can
// give that process secrets in its environment (what /proc/PID/environ shows is fixed at exec) or
// SIGKILL it mid-command the way a worker dies.
import { commandEnvironment } from '../../src/activities/tools/command-environment';
import { runSandboxedCommand } from '../../src/activities/tools/sandbox';

const [command = '', workspace = '', mode = ''] = process.argv.slice(2);
runSandboxedCommand({
  command,
  workspace,
  env: commandEnvironment({ idempotencyKey: 'sandbox-test/call' }),
  timeoutMs: 30_000,
  ...(mode === 'unconfined' ? { status: { mode: 'unconfined', reason: 'test' } as const } : {}),
})
  .then((result) => {
    process.stdout.write(
      JSON.stringify({
        sandbox: result.sandbox,
        stdout: result.stdout.toString(),
        stderr: result.stderr.toString(),
      }),
    );
  })
  .catch((error: unknown) => {
    console.error(error);
    process.exit(1);
  });
