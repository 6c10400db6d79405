/**
 * The offline demo, end to end: a Temporal dev server with its Web UI and state file, a keel
 * worker, and one goal whose last step is irreversible. Without ANTHROPIC_API_KEY the model is
 * SCRIPTED (scenarios/demo.yaml replayed by a loopback Messages endpoint).
 */
import Anthropic from '@anthropic-ai/sdk';
import { DefaultLogger, NativeConnection, Runtime } from '@temporalio/worker';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { createInterface } from 'node:readline/promises';
import { connectClient, decideApproval, startGoal } from '../client/goal-client';
import { describeResult, followGoal } from '../cli/follow-goal';
import { workflowPageUrl } from '../client/web-ui';
import { startDevServer, type DevServer } from '../dev-server/dev-server';
import { loadScenarioFile } from '../scripted-model/scenario';
import { startScriptedMessagesServer } from '../scripted-model/scripted-messages-server';
import { anthropicFromEnvironment, createKeelWorker } from '../worker';
import { Connection } from '@temporalio/client';

const ROOT = path.resolve(__dirname, '../..');
const STATE_DIR = path.join(ROOT, '.keel');
const ADDRESS = '127.0.0.1:7233';
const UI_PORT = 8233;
const NAMESPACE = 'default';
const TASK_QUEUE = 'keel-demo';

const print = (line: string) => console.log(line);

async function main(): Promise<void> {
  Runtime.install({ logger: new DefaultLogger('WARN') }); // the worker's INFO chatter hides the story
  mkdirSync(STATE_DIR, { recursive: true });
  const interactive = Boolean(process.stdin.isTTY && process.stdout.isTTY) && !process.env.CI;
  const server = await ensureDevServer();
  const workspace = prepareWorkspace();

  const scripted = !process.env.ANTHROPIC_API_KEY;
  let anthropic: Anthropic;
  let closeModel: () => Promise<void> = () => Promise.resolve();
  if (scripted) {
    const scenario = loadScenarioFile(path.join(ROOT, 'scenarios/demo.yaml'));
    const endpoint = await startScriptedMessagesServer({ scenarios: [scenario] });
    anthropic = new Anthropic({
      apiKey: 'scripted-model-needs-no-key',
      baseURL: endpoint.url,
      maxRetries: 0,
    });
    closeModel = () => endpoint.close();
    print(
      `model: SCRIPTED — replaying scenarios/demo.yaml (no LLM is called; set ANTHROPIC_API_KEY for a real model)`,
    );
  } else {
    anthropic = anthropicFromEnvironment();
    print(`model: real, via ${anthropic.baseURL}`);
  }

  const workerConnection = await NativeConnection.connect({ address: ADDRESS });
  const worker = await createKeelWorker({
    connection: workerConnection,
    namespace: NAMESPACE,
    taskQueue: TASK_QUEUE,
    anthropic,
    journalDirectory: path.join(STATE_DIR, 'journal'),
  });
  const client = await connectClient({ address: ADDRESS, namespace: NAMESPACE, taskQueue: TASK_QUEUE });
  const rl = interactive ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
  const prompts = new Map<string, AbortController>();

  const outcome = await worker.runUntil(async () => {
    const handle = await startGoal(client, {
      taskQueue: TASK_QUEUE,
      input: {
        goal: 'Tidy the demo project: summarise its open TODO notes in TODO-SUMMARY.md and delete the stale build directory.',
        successCriteria: ['TODO-SUMMARY.md lists every open TODO', 'the build directory is gone'],
        workspace,
        approvalPolicy: 'auto',
      },
    });
    print(`goal started: ${handle.workflowId}`);
    print(`web ui: ${workflowPageUrl(`http://localhost:${UI_PORT}`, NAMESPACE, handle.workflowId)}`);
    return followGoal(handle, {
      print,
      onPendingApproval: async (approval) => {
        const approve = `npx keel approve ${handle.workflowId} ${approval.callId}`;
        print(`  approve from another terminal:  ${approve}`);
        print(
          `  or with the Temporal CLI:       temporal workflow signal --workflow-id ${handle.workflowId} --name approve --input '{"callId":"${approval.callId}","approver":"you"}'`,
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
  });
  rl?.close();
  describeResult(outcome).forEach((line) => print(line));
  print(`workspace: ${workspace}`);
  print(`web ui: http://localhost:${UI_PORT}/namespaces/${NAMESPACE}/workflows`);
  await client.connection.close();
  await workerConnection.close();
  await closeModel();
  if (server && interactive) {
    print('The dev server keeps running so you can look around the Web UI; press Ctrl-C to stop it.');
    await new Promise<void>((resolve) => process.once('SIGINT', () => resolve()));
  }
  await server?.stop();
  process.exitCode = outcome.status === 'completed' ? 0 : 1;
}

/** Reuses a dev server already on :7233, otherwise starts one with the Web UI and a state file. */
async function ensureDevServer(): Promise<DevServer | undefined> {
  try {
    const connection = await Connection.connect({ address: ADDRESS, connectTimeout: 1000 });
    await connection.workflowService.getSystemInfo({});
    await connection.close();
    print(`temporal: using the server already on ${ADDRESS}`);
    return undefined;
  } catch {
    const dbFile = path.join(STATE_DIR, 'temporal.db');
    print(
      `temporal: starting a dev server on ${ADDRESS} (Web UI http://localhost:${UI_PORT}, state ${path.relative(ROOT, dbFile)})`,
    );
    return startDevServer({ port: 7233, uiPort: UI_PORT, dbFile });
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
