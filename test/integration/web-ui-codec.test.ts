import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { PayloadCodec } from '@temporalio/common';
import type { Browser, Page } from 'playwright-core';
import { startGoal, type GoalHandle } from '../../src/client/goal-client';
import { startCodecServer, type CodecServer } from '../../src/codec/codec-server';
import { EncryptionCodec } from '../../src/codec/encryption-codec';
import { encryptionKeysFromEnv } from '../../src/codec/encryption-keys';
import { freePort, startDevServer, type DevServer } from '../../src/dev-server/dev-server';
import type { LedgerEvent } from '../../src/workflows/common/ledger';
import { goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import { decisionShownInDetails, sendApproveFromWebUi, UI_TIMEOUT_MS } from '../support/web-ui-signal';
import { launchChromium } from '../support/browser';
import { createHarness, eventually, tempDirectory, type Harness } from '../support/temporal';

/**
 * With encryption on, the Web UI shows a goal's text only through the codec server: the dev
 * server's UI is started with --ui-codec-endpoint pointing at keel's codec server, and the browser
 * asks it to decode, and to encode what a person sends from it. Runs its own dev server because
 * the shared test server has no UI.
 */

process.env.KEEL_ENCRYPTION_KEYS = `ui-test:${randomBytes(32).toString('base64')}`;

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts');
const GOAL = `GOAL-UI-CODEC: decoded for the browser ${randomBytes(4).toString('hex')}`;
const DECIDE_GOAL = `GOAL-UI-CODEC-DECIDE: approved from the browser ${randomBytes(4).toString('hex')}`;

let codecServer: CodecServer | undefined;
let server: DevServer | undefined;
let harness: Harness | undefined;
let browser: Browser | undefined;
let page: Page;
let workflowId: string;
let decodeRequests = 0;
/** What the browser asked the codec server to encode, each payload's data as text. */
const encoded: string[] = [];
const workspaces: string[] = [];

before(async () => {
  browser = await launchChromium();
  const uiPort = await freePort();
  const keyring = encryptionKeysFromEnv(process.env);
  assert.ok(keyring);
  const codec = new EncryptionCodec(keyring);
  const counting: PayloadCodec = {
    encode: (payloads) => {
      encoded.push(...payloads.map((payload) => Buffer.from(payload.data ?? []).toString('utf8')));
      return codec.encode(payloads);
    },
    decode: (payloads) => {
      decodeRequests += 1;
      return codec.decode(payloads);
    },
  };
  codecServer = await startCodecServer({
    codec: counting,
    uiOrigins: [`http://127.0.0.1:${uiPort}`, `http://localhost:${uiPort}`],
  });
  server = await startDevServer({ ephemeral: true, uiPort, uiCodecEndpoint: codecServer.url });
  harness = await createHarness({
    address: server.address,
    scenarios: [
      {
        name: 'ui-codec-decide',
        match: 'GOAL-UI-CODEC-DECIDE',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'echo via the web ui' } }] },
          { text: 'echoed' },
        ],
      },
      { name: 'ui-codec', match: 'GOAL-UI-CODEC', turns: [{ text: 'nothing to do' }] },
    ],
  });
  workflowId = `web-ui-codec-${Date.now()}`;
  const handle = await startGoal(harness.client, {
    input: { goal: GOAL, workspace: workspaceDirectory() },
    taskQueue: harness.taskQueue,
    workflowId,
  });
  const result = await harness.withWorker(() => handle.result());
  assert.equal(result.status, 'completed');
  page = await browser.newPage({ viewport: { width: 1400, height: 1800 } });
  mkdirSync(ARTIFACTS, { recursive: true });
});

after(async () => {
  for (const workspace of workspaces) rmSync(workspace, { recursive: true, force: true });
  await browser?.close();
  await harness?.close();
  await server?.stop();
  await codecServer?.close();
});

function workspaceDirectory(): string {
  const workspace = tempDirectory('keel-ws-');
  workspaces.push(workspace);
  return workspace;
}

function workflowUrl(id: string): string {
  return `${server?.uiUrl?.replace('localhost', '127.0.0.1') ?? ''}/namespaces/default/workflows/${id}`;
}

test('the workflow page shows the goal text, decoded by the codec server', async () => {
  await page.goto(workflowUrl(workflowId));
  try {
    await page.getByText(GOAL).first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    assert.ok(decodeRequests > 0, 'the browser asked the codec server to decode');
  } finally {
    await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-codec-decoded.png'), fullPage: true });
  }
});

test('the User Metadata tab shows the static summary (the goal line), also a codec payload', async () => {
  await page.getByRole('tab', { name: 'User Metadata' }).click({ timeout: UI_TIMEOUT_MS });
  try {
    await page
      .frameLocator('iframe#user-metadata-summary')
      .getByText(GOAL)
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  } finally {
    await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-codec-summary.png'), fullPage: true });
  }
});

/** The ledger's approval.decided event; failing with what the goal says instead, if none comes. */
async function approvalDecided(handle: GoalHandle): Promise<LedgerEvent> {
  try {
    return await eventually(async () =>
      (await handle.query(ledgerQuery, {})).find((event) => event.kind === 'approval.decided'),
    );
  } catch (error) {
    const status = await handle.query(goalStatusQuery);
    const ignored = status.lastIgnoredDecision;
    const why = ignored ? `last ignored: ${ignored.reason}: ${ignored.message}` : 'nothing ignored';
    throw new Error(`no approval was decided (${why}; ${encoded.length} payloads encoded)`, { cause: error });
  }
}

// A goal that refuses plain-text decisions accepts this one: the Web UI sent it through the codec.
test("an approve sent from the Web UI's Send a Signal dialog is encoded by the codec server and accepted as encrypted", async () => {
  const running = harness;
  assert.ok(running);
  const approver = 'ui-codec-approver';
  await running.withWorker(async () => {
    const handle = await startGoal(running.client, {
      input: {
        goal: DECIDE_GOAL,
        workspace: workspaceDirectory(),
        // With network allowed every run_command is irreversible: it waits for a human.
        sandbox: { network: true },
        requireEncryptedDecisions: true,
      },
      taskQueue: running.taskQueue,
      workflowId: `web-ui-codec-decide-${Date.now()}`,
    });
    try {
      const callId = await eventually(
        async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId,
      );
      await page.goto(workflowUrl(handle.workflowId));
      // What a person does: copy the Data from the details and put their name in it.
      const shown = await decisionShownInDetails(page);
      assert.match(shown, /YOUR_NAME/);
      const decision = shown.replace('YOUR_NAME', approver);
      const encodedBefore = encoded.length;

      await sendApproveFromWebUi(page, decision);

      const decided = await approvalDecided(handle);
      assert.deepEqual(
        {
          callId: decided.data.callId,
          approved: decided.data.approved,
          approver: decided.data.approver,
          via: decided.data.via,
        },
        { callId, approved: true, approver, via: 'signal' },
      );
      // Through the codec: no plain-text mark, and the browser had the codec server encode it.
      assert.equal(decided.data.arrivedInPlainText, undefined);
      const sent = encoded.slice(encodedBefore);
      assert.ok(
        sent.some((text) => text.includes(approver)),
        `the codec server encoded the decision (it encoded: ${JSON.stringify(sent)})`,
      );
      // Polled, not awaited: a goal that did not continue fails the test instead of hanging it.
      const status = await eventually(async () => {
        const view = await handle.query(goalStatusQuery);
        return view.status === 'running' ? undefined : view;
      });
      assert.equal(status.status, 'completed');
      assert.equal(status.counters.decisionsInPlainText, 0);
      assert.equal(status.lastIgnoredDecision, undefined);
    } finally {
      await page.screenshot({ path: path.join(ARTIFACTS, 'web-ui-codec-approved.png'), fullPage: true });
      // Ends a goal left waiting, so the worker can stop.
      if ((await handle.describe()).status.name === 'RUNNING') await handle.terminate('test ended');
    }
  });
});
