import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readFileSync, rmSync } from 'node:fs';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import {
  createHarness,
  historyText,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';

// The worker runs as its own process so the key is in its real environment at exec, which is
// what /proc/PID/environ shows (a process.env change in the test process would not be).
const API_KEY_MARKER = `sk-ant-keel-marker-${randomBytes(16).toString('hex')}`;
const LEAKY_COMMANDS = ['cat /proc/$PPID/environ', 'cat /proc/1/environ'];

let harness: Harness;
let worker: WorkerProcess | undefined;
const directories: string[] = [];

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'environ',
        match: 'GOAL-ENVIRON',
        turns: [
          { toolCalls: LEAKY_COMMANDS.map((command) => ({ name: 'run_command', input: { command } })) },
          { text: 'environ finished' },
        ],
      },
    ],
  });
});

after(async () => {
  await worker?.stop();
  await harness.close();
  await stopOwnServer();
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});

test(
  "reading /proc/*/environ runs sandboxed, with no human needed: the worker's API key reaches neither history nor the model",
  { timeout: 120_000 },
  async () => {
    const workspace = tempDirectory('keel-environ-');
    directories.push(workspace, harness.journalDirectory);
    worker = await startWorkerProcess({
      address: await temporalAddress(),
      taskQueue: harness.taskQueue,
      modelBaseUrl: harness.scripted.url,
      journalDirectory: harness.journalDirectory,
      apiKey: API_KEY_MARKER,
    });
    // Control: the key really is readable in the worker's /proc entry, so the checks below mean something.
    assert.ok(readFileSync(`/proc/${worker.pid}/environ`, 'utf8').includes(API_KEY_MARKER));

    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `sandbox-environ-${Date.now()}`,
      args: [{ goal: 'GOAL-ENVIRON: read the environment', workspace }],
    });
    // Not read-only by its words (it names paths outside the workspace), so it runs on a layer
    // in the sandbox, whose /proc shows only the sandbox's own processes.
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(result.counters.toolCalls, 2);
    assert.equal(result.counters.approvalsRequested, 0);

    // The commands did run (in the sandbox): what they read is the scrubbed environment.
    const resultsSent = JSON.stringify(
      harness.scripted.requests.find((request) => request.turnIndex === 1)?.body.messages?.at(-1),
    );
    assert.match(resultsSent, /KEEL_IDEMPOTENCY_KEY=/);
    assert.match(resultsSent, /Exit code 0/);

    const history = historyText(await handle.fetchHistory());
    assert.match(history, /cat \/proc\/1\/environ/, 'the decoded history holds the calls');
    assert.ok(!history.includes(API_KEY_MARKER), 'the API key is in the workflow history');
    for (const request of harness.scripted.requests)
      assert.ok(!JSON.stringify(request).includes(API_KEY_MARKER), 'the API key was sent to the model');
  },
);
