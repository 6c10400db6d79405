/**
 * The offline demo, end to end: a Temporal dev server with its Web UI and state file (or the server
 * TEMPORAL_ADDRESS names, or one already on :7233), a keel worker, and one goal whose last step is
 * irreversible. Without ANTHROPIC_API_KEY the model is SCRIPTED (scenarios/demo.yaml replayed by a
 * loopback Messages endpoint). KEEL_DEMO_DIR moves its state (default .keel in the repository).
 */
import Anthropic from '@anthropic-ai/sdk';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { connectClient, decideApproval, startGoal } from '../client/goal-client';
import { describeResult, followGoal } from '../cli/follow-goal';
import { firstRunIdOf, goalPageUrl, webUiLine, webUiOf } from '../cli/run-command';
import {
  connectionSettings,
  DEFAULT_TEMPORAL_ADDRESS,
  type ConnectionSettings,
} from '../client/connection-settings';
import { startDevServer, type DevServer } from '../dev-server/dev-server';
import { ensureKeelSearchAttributes } from '../dev-server/search-attributes';
import { loadScenarioFile } from '../scripted-model/scenario';
import { startScriptedMessagesServer } from '../scripted-model/scripted-messages-server';
import { anthropicFromEnvironment, createKeelWorker } from '../worker';
import { createFileModelRequestStore } from '../activities/model/request-store/file-model-request-store';
import { startDemoInbox } from './demo-inbox';
import { connectTemporal } from '../client/temporal-connection';

const ROOT = path.resolve(__dirname, '../..');
const STATE_DIR = path.resolve(process.env.KEEL_DEMO_DIR || path.join(ROOT, '.keel'));
// A task queue of this run's own: a keel worker already polling "keel" (or an earlier demo's, with
// other code or settings) must not take the demo's tasks.
const TASK_QUEUE = `keel-demo-${process.pid}-${Date.now().toString(36)}`;

const print = (line: string) => console.log(line);

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') }); // the worker's INFO chatter hides the story
  mkdirSync(STATE_DIR, { recursive: true });
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY) && !process.env.CI;
  const settings = connectionSettings({ taskQueue: TASK_QUEUE });
  const { address, namespace } = settings;
  const server = await ensureDevServer(settings);
  await registerSearchAttributes(settings);
  // The UI of a server the demo started is its own; another server's is asked while the goal starts.
  const ui = server
    ? server.uiUrl === undefined
      ? undefined
      : { base: server.uiUrl, answering: Promise.resolve(undefined) }
    : webUiOf(address);
  const workspace = prepareWorkspace();

  const scripted = !process.env.ANTHROPIC_API_KEY;
  let anthropic: Anthropic;
  let closeModel: () => Promise<void> = () => Promise.resolve();
  if (scripted) {
    // The child goal's scenario first: it is chosen by its task's text, the demo's for the rest.
    const scenarios = ['scenarios/demo-child.yaml', 'scenarios/demo.yaml'].map((file) =>
      loadScenarioFile(path.join(ROOT, file)),
    );
    const endpoint = await startScriptedMessagesServer({ scenarios });
    anthropic = new Anthropic({
      apiKey: 'scripted-model-needs-no-key',
      baseURL: endpoint.url,
      maxRetries: 0,
    });
    closeModel = () => endpoint.close();
    print(
      `model: SCRIPTED — replaying scenarios/demo.yaml, its child goal scenarios/demo-child.yaml (no LLM is called; set ANTHROPIC_API_KEY for a real model)`,
    );
  } else {
    anthropic = anthropicFromEnvironment();
    print(`model: real, via ${anthropic.baseURL}`);
  }

  const workerConnection = await NativeConnection.connect({ address });
  const worker = await createKeelWorker({
    connection: workerConnection,
    namespace,
    taskQueue: TASK_QUEUE,
    anthropic,
    journalDirectory: path.join(STATE_DIR, 'journal'),
    modelRequestStore: createFileModelRequestStore({ directory: path.join(STATE_DIR, 'model-requests') }),
  });
  const client = await connectClient(settings);
  const inbox = await startDemoInbox(client, STATE_DIR, process.env.USER ?? 'demo user');
  print(`inbox: ${inbox.link} (approve from a browser: keel inbox)`);
  const rl = interactive ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
  const prompts = new Map<string, AbortController>();

  let goal: { workflowId: string; runId: string | undefined } | undefined;
  let answering: boolean | undefined;
  // The goal's "User Metadata" tab, where the Web UI shows its summary and current details.
  const pageUrl = () => (ui && goal ? goalPageUrl({ base: ui.base, namespace, ...goal }) : undefined);
  const pageLine = () =>
    ui && goal ? webUiLine({ base: ui.base, namespace, ...goal, answering }) : undefined;
  // In a terminal, with a server of its own, the demo keeps that server up after the goal for the
  // Web UI; its worker keeps serving the demo's queue meanwhile, because the page's Current Details
  // come from a query and only a worker answers queries (even for a closed goal).
  const linger = Boolean(server && interactive);
  const addressFlag = address === DEFAULT_TEMPORAL_ADDRESS ? '' : ` --address ${address}`;
  const outcome = await worker.runUntil(async () => {
    const handle = await startGoal(client, {
      taskQueue: TASK_QUEUE,
      // The Web UI shows what the terminal says: this run's model replays a script.
      summaryPrefix: scripted ? '[SCRIPTED model, scenarios/demo.yaml] ' : undefined,
      input: {
        goal: 'Tidy the demo project: summarise its open TODO notes in TODO-SUMMARY.md and delete the stale build directory.',
        successCriteria: ['TODO-SUMMARY.md lists every open TODO', 'the build directory is gone'],
        workspace,
        approvalPolicy: 'auto',
        // The model may hand a task to a child goal (the delegate tool); the scripted one does.
        delegation: { enabled: true },
      },
    });
    goal = { workflowId: handle.workflowId, runId: firstRunIdOf(handle) };
    answering = await ui?.answering;
    print(`goal started: ${handle.workflowId} (task queue ${TASK_QUEUE})`);
    const page = pageLine();
    if (page) print(page);
    const result = await followGoal(handle, {
      print,
      onPendingApproval: async (approval) => {
        const approve = `npx keel${addressFlag} approve ${handle.workflowId} ${approval.callId}`;
        print(`  approve from another terminal:  ${approve}`);
        print(
          `  or with the Temporal CLI:       temporal workflow signal${addressFlag} --workflow-id ${handle.workflowId} --name approve --input '{"callId":"${approval.callId}","approver":"you"}'`,
        );
        if (!rl) {
          print(`  non-interactive run: the demo approves it itself (${approve})`);
          await decideApproval(handle, {
            callId: approval.callId,
            approved: true,
            approver: 'keel-demo (non-interactive)',
          });
          return;
        }
        // The prompt gives way when the call is decided elsewhere (see onApprovalSettled).
        const prompt = new AbortController();
        prompts.set(approval.callId, prompt);
        let answer: string;
        try {
          answer = (await rl.question('  approve it here? [y/N] ', { signal: prompt.signal }))
            .trim()
            .toLowerCase();
        } catch {
          return;
        } finally {
          prompts.delete(approval.callId);
        }
        await decideApproval(handle, {
          callId: approval.callId,
          approved: answer === 'y' || answer === 'yes',
          approver: process.env.USER ?? 'demo user',
          reason: 'answered at the demo prompt',
        }).catch((error: unknown) => print(`  (already decided elsewhere: ${String(error)})`));
      },
      onApprovalSettled: (callId) => {
        const prompt = prompts.get(callId);
        if (!prompt) return;
        print('\n  (decided elsewhere)');
        prompt.abort();
      },
    });
    rl?.close();
    describeResult(result).forEach((line) => print(line));
    print(`workspace: ${workspace}`);
    if (linger) {
      if (page) print(page);
      print(
        "The dev server and the demo's worker keep running so you can look around the Web UI; press Ctrl-C to stop them.",
      );
      const signal = await stopSignal();
      print(`\nstopping (${signal}): the worker, then the dev server`);
    }
    return result; // runUntil shuts the worker down once this resolves
  });
  await inbox.close();
  await client.connection.close();
  await workerConnection.close();
  await closeModel();
  const page = pageUrl();
  if (!server) {
    // Someone else's server: it stays as it was, and so does its UI.
    print(`temporal: the server on ${address} was already running; the demo leaves it running`);
    const line = pageLine();
    if (line) print(line);
  } else if (linger) {
    await server.stop();
    print('temporal: the dev server has stopped');
  } else {
    // An unattended run (CI) leaves no server behind, so it must not end on a link that is dead.
    await server.stop();
    const port = address.split(':').pop() ?? '';
    const dbFile = path.relative(process.cwd(), path.join(STATE_DIR, 'temporal.db')) || 'temporal.db';
    print('temporal: the dev server has stopped (a non-interactive run leaves no server behind);');
    print(
      `  to look at the goal again: temporal server start-dev --port ${port} --db-filename ${dbFile}` +
        ` and open ${page ?? `the Web UI on port ${Number(port) + 1000}`}`,
    );
  }
  process.exitCode = outcome.status === 'completed' ? 0 : 1;
}

/**
 * The first SIGINT (Ctrl-C) or SIGTERM. Handled, neither ends the process, so the demo stops its
 * worker and then its server; a second one finds the default handler again and ends it at once.
 */
function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** keel's search attributes on the server, registered when missing (a plain `temporal server start-dev`). */
async function registerSearchAttributes(settings: ConnectionSettings): Promise<void> {
  const connection = await connectTemporal({ address: settings.address, connectTimeout: 5000 });
  try {
    const check = await ensureKeelSearchAttributes({ connection, namespace: settings.namespace });
    if (check.outcome === 'registered')
      print(
        `temporal: registered keel's search attributes (${check.names.join(', ')}) in namespace ${settings.namespace}`,
      );
    if (check.outcome === 'unknown')
      print(
        `temporal: cannot check keel's search attributes (${check.reason}); the goal hangs if they are missing`,
      );
  } finally {
    await connection.close();
  }
}

/**
 * Uses the server on the address (TEMPORAL_ADDRESS, or 127.0.0.1:7233) when one answers; otherwise
 * starts a dev server there, with the Web UI on the port + 1000 (the dev server's own convention,
 * 7233 → 8233) and a state file. A remote address that does not answer is an error.
 */
async function ensureDevServer(settings: ConnectionSettings): Promise<DevServer | undefined> {
  const { address } = settings;
  try {
    const connection = await connectTemporal({ address, connectTimeout: 1000 });
    await connection.workflowService.getSystemInfo({});
    await connection.close();
    print(`temporal: using the server already on ${address}`);
    return undefined;
  } catch {
    const local = /^(127\.0\.0\.1|localhost):(\d+)$/.exec(address);
    if (!local) {
      throw new Error(
        `no Temporal server answers on ${address} (TEMPORAL_ADDRESS): start it, or unset TEMPORAL_ADDRESS to let the demo start a dev server on ${DEFAULT_TEMPORAL_ADDRESS}`,
      );
    }
    const port = Number(local[2]);
    const dbFile = path.join(STATE_DIR, 'temporal.db');
    print(
      `temporal: starting a dev server on ${address} (Web UI http://localhost:${port + 1000}, state ${path.relative(process.cwd(), dbFile)})`,
    );
    return startDevServer({ port, uiPort: port + 1000, dbFile });
  }
}

function prepareWorkspace(): string {
  const workspace = path.join(STATE_DIR, 'demo-workspace');
  rmSync(workspace, { recursive: true, force: true });
  mkdirSync(path.join(workspace, 'build'), { recursive: true });
  writeFileSync(
    path.join(workspace, 'notes.md'),
    '# Notes\n\n- TODO: write the release notes\n- done: fix the parser\n- TODO: rename the config option\n',
  );
  writeFileSync(path.join(workspace, 'README.md'), '# Demo project\n');
  writeFileSync(path.join(workspace, 'build', 'app.js.old'), '// stale build output\n');
  return workspace;
}

main().catch((error: unknown) => {
  console.error(`keel demo: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
