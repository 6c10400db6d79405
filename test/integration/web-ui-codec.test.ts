import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { PayloadCodec } from '@temporalio/common';
import type { Browser, Page } from 'playwright-core';
import { startGoal } from '../../src/client/goal-client';
import { startCodecServer, type CodecServer } from '../../src/codec/codec-server';
import { EncryptionCodec } from '../../src/codec/encryption-codec';
import { encryptionKeysFromEnv } from '../../src/codec/encryption-keys';
import { freePort, startDevServer, type DevServer } from '../../src/dev-server/dev-server';
import { launchChromium } from '../support/browser';
import { createHarness, tempDirectory, type Harness } from '../support/temporal';

/**
 * With encryption on, the Web UI shows a goal's text only through the codec server: the dev
 * server's UI is started with --ui-codec-endpoint pointing at keel's codec server, and the browser
 * asks it to decode. Runs its own dev server because the shared test server has no UI.
 */

process.env.KEEL_ENCRYPTION_KEYS = `ui-test:${randomBytes(32).toString('base64')}`;

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts');
const GOAL = `GOAL-UI-CODEC: decoded for the browser ${randomBytes(4).toString('hex')}`;
const UI_TIMEOUT_MS = 20_000;

let codecServer: CodecServer | undefined;
let server: DevServer | undefined;
let harness: Harness | undefined;
let browser: Browser | undefined;
let page: Page;
let workflowId: string;
let decodeRequests = 0;
let workspace: string | undefined;

before(async () => {
  browser = await launchChromium();
  const uiPort = await freePort();
  const keyring = encryptionKeysFromEnv(process.env);
  assert.ok(keyring);
  const codec = new EncryptionCodec(keyring);
  const counting: PayloadCodec = {
    encode: (payloads) => codec.encode(payloads),
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
    scenarios: [{ name: 'ui-codec', match: 'GOAL-UI-CODEC', turns: [{ text: 'nothing to do' }] }],
  });
  workflowId = `web-ui-codec-${Date.now()}`;
  const handle = await startGoal(harness.client, {
    input: { goal: GOAL, workspace: (workspace = tempDirectory('keel-ws-')) },
    taskQueue: harness.taskQueue,
    workflowId,
  });
  const result = await harness.withWorker(() => handle.result());
  assert.equal(result.status, 'completed');
  page = await browser.newPage({ viewport: { width: 1400, height: 1800 } });
  mkdirSync(ARTIFACTS, { recursive: true });
});

after(async () => {
  if (workspace) rmSync(workspace, { recursive: true, force: true });
  await browser?.close();
  await harness?.close();
  await server?.stop();
  await codecServer?.close();
});

test('the workflow page shows the goal text, decoded by the codec server', async () => {
  const url = `${server?.uiUrl?.replace('localhost', '127.0.0.1') ?? ''}/namespaces/default/workflows/${workflowId}`;
  await page.goto(url);
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
