import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main';
import { ExitCode } from '../../src/cli/exit-codes';
import { CliError } from '../../src/cli/cli-error';
import { NO_WORKER_EXIT_CODE } from '../../src/client/no-worker';

/** Runs the CLI in this process, with an address nothing listens on: no command should reach it. */
async function run(argv: string[]): Promise<{ code: number; stderr: string }> {
  const written: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk: string) => written.push(String(chunk)) > 0;
  try {
    const code = await main(['--address', '127.0.0.1:1', ...argv]);
    return { code, stderr: written.join('') };
  } finally {
    process.stderr.write = write;
  }
}

test('issue 46: the exit-code table', () => {
  assert.deepEqual(ExitCode, { Ok: 0, Failed: 1, BadInput: 2, NoWorker: 3 });
  assert.equal(ExitCode.NoWorker, NO_WORKER_EXIT_CODE, 'one "no worker" code for every command');
  assert.equal(new CliError('x').exitCode, ExitCode.BadInput);
});

test("issue 46: commander's own errors are bad input, exit 2, in one line", async () => {
  const cases: [string[], RegExp][] = [
    [['status', '--bogus'], /^keel: unknown option '--bogus'\n$/],
    [['status'], /^keel: missing required argument 'workflowId'\n$/],
    [['nonsense-command'], /^keel: unknown command 'nonsense-command'\n$/],
    [['tools', '--timeout', 'soon'], /^keel: option '--timeout <duration>' argument 'soon' is invalid/],
  ];
  for (const [argv, stderr] of cases) {
    const result = await run(argv);
    assert.equal(result.code, ExitCode.BadInput, `${argv.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, stderr, argv.join(' '));
  }
});

test('issue 46: --help still exits 0', async () => {
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = () => true;
  try {
    assert.equal(await main(['status', '--help']), ExitCode.Ok);
  } finally {
    process.stdout.write = write;
  }
});
