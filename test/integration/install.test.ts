import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { cpSync, readdirSync, realpathSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import {
  createHarness,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';

// Issue 25: keel as a newcomer installs it. keel is packed (npm pack, as a registry or a git URL
// install would), installed from the tarball into a fresh project (dependencies from the npm cache
// when it has them), and examples/own-project — the worker with a tool of its own and the client
// the docs show — is type-checked there and run: a goal on the real dev server, answered by the
// scripted model. Then a second copy of @temporalio/worker is refused in one line.
const ROOT = path.resolve(__dirname, '../..');
const EXAMPLE = path.join(ROOT, 'examples/own-project');
const run = promisify(execFile);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { compiledIsCurrent } = require('../../bin/load-keel.js') as { compiledIsCurrent: () => boolean };

let harness: Harness;
let project: string;
let worker: ChildProcess | undefined;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'own-project',
        match: 'GOAL-OWN-PROJECT',
        turns: [
          { toolCalls: [{ name: 'count_words', input: { path: 'notes.md' } }] },
          { text: 'notes.md has 5 words.' },
        ],
      },
    ],
  });
  const packed = tempDirectory('keel-pack-');
  // prepack builds dist/; when the build is current, packing skips it (seconds on a busy machine).
  const scripts = compiledIsCurrent() ? ['--ignore-scripts'] : [];
  const { stdout } = await run('npm', ['pack', '--json', ...scripts, '--pack-destination', packed], {
    cwd: ROOT,
    maxBuffer: 64 * 1024 * 1024,
  });
  const [{ filename }] = JSON.parse(stdout.slice(stdout.indexOf('['))) as [{ filename: string }];
  project = realpathSync(tempDirectory('keel-own-project-'));
  for (const entry of readdirSync(EXAMPLE))
    cpSync(path.join(EXAMPLE, entry), path.join(project, entry), { recursive: true });
  await run(
    'npm',
    [
      'install',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      '--loglevel=error',
      path.join(packed, filename),
    ],
    { cwd: project, maxBuffer: 64 * 1024 * 1024 },
  );
});

after(async () => {
  if (worker?.exitCode === null) {
    const exited = new Promise((resolve) => worker?.once('exit', resolve));
    worker.kill('SIGTERM');
    await exited;
  }
  await harness.close();
  await stopOwnServer();
});

test('the packed keel installs into a fresh project; its worker and client type-check there', async () => {
  // The project's own TypeScript against the installed package's types: the docs' code compiles.
  await run(process.execPath, [path.join(project, 'node_modules/typescript/bin/tsc'), '-p', project]);
  // One copy of Temporal and zod, shared by the project and keel (peer dependencies).
  const copies = await run(
    'npm',
    ['ls', '--all', '--parseable', '@temporalio/worker', '@temporalio/workflow', 'zod'],
    {
      cwd: project,
    },
  );
  assert.deepEqual(
    copies.stdout
      .trim()
      .split('\n')
      .filter((line) => line.includes('node_modules'))
      .sort(),
    [
      path.join(project, 'node_modules/@temporalio/worker'),
      path.join(project, 'node_modules/@temporalio/workflow'),
      path.join(project, 'node_modules/zod'),
    ],
  );
});

test("the project's worker runs its own tool in a goal its client starts", { timeout: 180_000 }, async () => {
  const address = await temporalAddress();
  const environment = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    TEMPORAL_ADDRESS: address,
    KEEL_TASK_QUEUE: harness.taskQueue,
    ANTHROPIC_API_KEY: 'test-key-of-the-own-project',
    ANTHROPIC_BASE_URL: harness.scripted.url,
    KEEL_REFLECTION_DIR: tempDirectory('keel-reflections-'),
    KEEL_MODEL_REQUESTS: tempDirectory('keel-model-requests-'),
    // Its registry of running goals' workspaces: the test's folder, not /tmp's for good.
    KEEL_STATE_DIRECTORY: process.env.KEEL_STATE_DIRECTORY ?? tempDirectory('keel-state-'),
  };
  worker = spawn(process.execPath, ['--import', 'tsx', 'worker.ts'], {
    cwd: project,
    env: environment,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  await started(worker);

  // The client runs in the goal's workspace, as the docs say (the workspace is its folder).
  const workspace = realpathSync(tempDirectory('keel-own-workspace-'));
  writeFileSync(path.join(workspace, 'notes.md'), 'one two three\nfour five\n');
  const tsx = path.join(project, 'node_modules/tsx/dist/loader.mjs');
  const client = await run(
    process.execPath,
    ['--import', tsx, path.join(project, 'client.ts'), 'GOAL-OWN-PROJECT: how many words are in notes.md?'],
    { cwd: workspace, env: environment },
  );
  assert.match(client.stdout, /^goal started: goal-\S+\ncompleted: notes\.md has 5 words\.\n$/);

  // The model was offered the goal's two tools, and got the tool's own answer.
  const [first, second] = harness.scripted.requests;
  const offered = (first?.body.tools as Array<{ name: string }> | undefined)?.map((tool) => tool.name);
  assert.deepEqual(offered?.sort(), ['count_words', 'read_file']);
  assert.match(JSON.stringify(second?.body.messages), /\\"words\\": 5/);
});

test('a NativeConnection from a second copy of Temporal is refused in one line, not a native panic', async () => {
  // A second @temporalio/worker with its own native core-bridge (as keel installed with `file:`
  // keeps in its own node_modules): its connection lives in another Tokio runtime, and keel's
  // Worker given it panicked ("there is no reactor running ... Tokio 1.x runtime").
  const vendor = path.join(project, 'vendor/node_modules/@temporalio');
  const secondCopy = path.join(vendor, 'worker');
  cpSync(path.join(project, 'node_modules/@temporalio/worker'), secondCopy, { recursive: true });
  const platform = { linux: 'linux', darwin: 'darwin', win32: 'windows' }[process.platform as string] ?? '?';
  const arch = process.arch === 'arm64' ? 'aarch64' : 'x86_64';
  cpSync(path.join(project, 'node_modules/@temporalio/core-bridge'), path.join(vendor, 'core-bridge'), {
    recursive: true,
    // The binary for this machine only (each is ~30 MB); no Rust sources.
    filter: (source) => {
      const inside = path
        .relative(path.join(project, 'node_modules/@temporalio/core-bridge'), source)
        .split(path.sep);
      if (inside[0] === 'sdk-core' || inside[0] === 'src') return false;
      return (
        inside[0] !== 'releases' ||
        inside[1] === undefined ||
        (inside[1].includes(platform) && inside[1].startsWith(arch))
      );
    },
  });
  writeFileSync(
    path.join(project, 'second-copy.js'),
    `const { NativeConnection } = require('./vendor/node_modules/@temporalio/worker');
     const { createKeelWorker } = require('keel');
     NativeConnection.connect({ address: process.env.TEMPORAL_ADDRESS })
       .then((connection) => createKeelWorker({ connection, taskQueue: 'never-polled' }))
       .then(() => process.exit(0), (error) => { console.error(error.message); process.exit(1); });`,
  );
  const refused = await run(process.execPath, ['second-copy.js'], {
    cwd: project,
    env: { PATH: process.env.PATH, TEMPORAL_ADDRESS: await temporalAddress(), ANTHROPIC_API_KEY: 'unused' },
  }).then(
    () => assert.fail('a second copy of Temporal was accepted'),
    (error: { code: number; stderr: string }) => error,
  );
  assert.equal(refused.code, 1);
  assert.equal(
    refused.stderr,
    `keel: two copies of @temporalio/worker: ${secondCopy} (your NativeConnection's) and ` +
      `${path.join(project, 'node_modules/@temporalio/worker')} (keel's); install keel's peer dependencies ` +
      `once in your project (npm install, then npm dedupe; with a file: install of keel, delete keel's own ` +
      `node_modules) so both use one copy\n`,
  );
});

/** Resolves once the worker polls its queue; rejects with its output if it exits first. */
function started(child: ChildProcess): Promise<void> {
  let output = '';
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`worker did not start within 90 s:\n${output}`)), 90_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('polling task queue')) {
        clearTimeout(timer);
        resolve();
      }
    });
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`worker exited with ${code} during start-up:\n${output}`));
    });
  });
}
