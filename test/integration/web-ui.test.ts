import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Browser, FrameLocator, Page } from 'playwright-core';
import { startGoal, type GoalHandle } from '../../src/client/goal-client';
import { freePort, startDevServer, type DevServer } from '../../src/dev-server/dev-server';
import type { LedgerEvent } from '../../src/workflows/common/ledger';
import {
  approveSignal,
  forkGoalUpdate,
  goalStatusQuery,
  ledgerQuery,
} from '../../src/workflows/goal/messages';
import {
  currentDetailsFrame,
  decisionShownInDetails,
  sendApproveFromWebUi,
  UI_TIMEOUT_MS,
} from '../support/web-ui-signal';
import { launchChromium } from '../support/browser';
import { createHarness, eventually, tempDirectory, type Harness } from '../support/temporal';

/**
 * The Temporal Web UI shows a goal waiting for approval so a human can act without reading raw
 * payloads: the goal as the summary, keel's current details, and the pending call. Runs its own
 * dev server because the shared test server has no UI.
 */

const ARTIFACTS = path.resolve(__dirname, '../../test-artifacts');
const GOAL = 'GOAL-WEB-UI: record the date in effects.txt';

let server: DevServer | undefined;
let harness: Harness | undefined;
let browser: Browser | undefined;
let page: Page;
let handle: GoalHandle;
let callId: string;
let uiPort: number;
let stopWorker: () => void = () => undefined;
let workerRun: Promise<void> | undefined;

before(async () => {
  // First, so a missing browser fails at once with its one-line fix.
  browser = await launchChromium();
  uiPort = await freePort();
  server = await startDevServer({ ephemeral: true, uiPort });
  harness = await createHarness({
    address: server.address,
    scenarios: [
      {
        name: 'web-ui',
        match: 'GOAL-WEB-UI',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'echo "$(date)" >> effects.txt' } }] },
          { text: 'date recorded' },
        ],
        branches: [{ when: 'TRY-HOLD', fromTurn: 1, turns: [{ text: 'holding' }] }],
      },
    ],
  });
  const workerStopped = new Promise<void>((resolve) => (stopWorker = resolve));
  const running = harness;
  workerRun = running.withWorker(() => workerStopped);
  handle = await startGoal(running.client, {
    // With network allowed every run_command is irreversible: it waits for a human.
    // In a folder of its own: the fork a test below makes lies beside it, and goes with the folder.
    input: { goal: GOAL, workspace: workspaceInFolder(), sandbox: { network: true } },
    taskQueue: running.taskQueue,
    workflowId: `web-ui-${Date.now()}`,
  });
  callId = await eventually(async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId);
  page = await browser.newPage({ viewport: { width: 1400, height: 1800 } });
  await page.goto(`http://127.0.0.1:${uiPort}/namespaces/default/workflows/${handle.workflowId}`);
  // Summary and current details live on the "User Metadata" tab of the workflow page.
  await page.getByRole('tab', { name: 'User Metadata' }).click({ timeout: UI_TIMEOUT_MS });
  mkdirSync(ARTIFACTS, { recursive: true });
});

after(async () => {
  // Approve so the goal finishes (unless the Web UI already did), then stop everything this file
  // started, whatever failed above.
  try {
    if (handle && callId && (await handle.describe()).status.name === 'RUNNING') {
      await handle.signal(approveSignal, { callId, approver: 'web-ui-test' });
      const result = await handle.result();
      assert.equal(result.status, 'completed');
    }
  } finally {
    stopWorker();
    await workerRun?.catch(() => undefined);
    await browser?.close();
    await harness?.close();
    await server?.stop();
  }
});

function workspaceInFolder(): string {
  const workspace = path.join(tempDirectory('keel-ws-'), 'ws');
  mkdirSync(workspace);
  return workspace;
}

/** The rendered markdown frame of the summary. */
function summaryFrame(): FrameLocator {
  return page.frameLocator('iframe#user-metadata-summary');
}

async function screenshot(name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, name), fullPage: true });
}

test('the summary shows the goal', async () => {
  await summaryFrame().getByText(GOAL).waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
});

test('the current details show the pending approval and the command that approves it', async () => {
  try {
    const details = currentDetailsFrame(page);
    await details.getByText('Pending approvals (1)').waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await details
      .getByText(`keel approve ${handle.workflowId} ${callId}`, { exact: true })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    // Why it waits, in the panel a human decides from (issue 24).
    await details.getByText('Why it waits:').waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    await details
      .getByText('run_command: echo "$(date)" >> effects.txt', { exact: true })
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  } finally {
    // Kept whether or not the assertions held: it shows what the page looked like.
    await screenshot('web-ui-pending-approval.png');
  }
});

test('the timeline names the approval wait and the status query shows the pending call id', async () => {
  await page.getByRole('tab', { name: 'Timeline' }).click({ timeout: UI_TIMEOUT_MS });
  await page
    .getByText('approval wait: run_command: echo "$(date)" >> effects.txt')
    .first()
    .waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  await page.getByRole('tab', { name: 'Queries' }).click({ timeout: UI_TIMEOUT_MS });
  // The tab opens on the first query it lists (keel's approvalRules): status is chosen by name.
  await page
    .getByRole('button', { name: /approvalRules|Query Type/ })
    .first()
    .click({ timeout: UI_TIMEOUT_MS });
  await page.getByRole('option', { name: /^status\b/ }).click({ timeout: UI_TIMEOUT_MS });
  await page.getByRole('button', { name: /Run Query|Refresh Query/ }).click({ timeout: UI_TIMEOUT_MS });
  try {
    await page.getByText(`"callId": "${callId}"`).waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  } finally {
    await screenshot('web-ui-status-query.png');
  }
});

/** The ledger's approval.decided event; failing with what the ledger says instead, if none comes. */
async function approvalDecided(): Promise<LedgerEvent> {
  try {
    return await eventually(async () =>
      (await handle.query(ledgerQuery, {})).find((event) => event.kind === 'approval.decided'),
    );
  } catch (error) {
    const approvals = (await handle.query(ledgerQuery, {})).filter((event) =>
      event.kind.startsWith('approval.'),
    );
    const seen = approvals.map((event) => `${event.kind}: ${event.summary}`).join('; ');
    throw new Error(`no approval was decided (${seen})`, { cause: error });
  }
}

test("lineage both ways: the details link to the goals forked from this one, and a fork's to its original", async () => {
  const receipt = await handle.executeUpdate(forkGoalUpdate, {
    args: [{ atTurn: 1, say: 'TRY-HOLD', by: 'web-ui-test' }],
  });
  const other = await (browser as Browser).newPage({ viewport: { width: 1400, height: 1800 } });
  const ui = `http://127.0.0.1:${uiPort}`;
  try {
    // The original's details, as a person sees them: the link, followed, lists the fork.
    await other.goto(`${ui}/namespaces/default/workflows/${handle.workflowId}`);
    await other.getByRole('tab', { name: 'User Metadata' }).click({ timeout: UI_TIMEOUT_MS });
    const forksLink = currentDetailsFrame(other).getByRole('link', { name: 'goals forked from this one' });
    const forks = await forksLink.getAttribute('href', { timeout: UI_TIMEOUT_MS });
    assert.ok(forks !== null);
    await other.goto(`${ui}${forks}`);
    await other.getByText(receipt.forkId).first().waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    // Filtered: the original itself (listed without the query, it is running) is not among them.
    assert.equal(await other.getByRole('link', { name: handle.workflowId, exact: true }).count(), 0);
    await other.goto(`${ui}/namespaces/default/workflows`);
    await other
      .getByRole('link', { name: handle.workflowId, exact: true })
      .first()
      .waitFor({ timeout: UI_TIMEOUT_MS });
    // The fork's details link back to the original's page.
    await other.goto(`${ui}/namespaces/default/workflows/${receipt.forkId}`);
    await other.getByRole('tab', { name: 'User Metadata' }).click({ timeout: UI_TIMEOUT_MS });
    const original = currentDetailsFrame(other).getByRole('link', { name: 'the original' });
    assert.equal(
      await original.getAttribute('href', { timeout: UI_TIMEOUT_MS }),
      `/namespaces/default/workflows/${handle.workflowId}`,
    );
  } finally {
    await other.screenshot({ path: path.join(ARTIFACTS, 'web-ui-fork-lineage.png'), fullPage: true });
    await other.close();
  }
});

// Last: it decides the approval the tests above look at.
test("the decision shown in the details, pasted into the Web UI's Send a Signal dialog, approves the call", async () => {
  const approver = 'web-ui-reviewer';
  // What a person does: copy the JSON from the details and put their name in it.
  const shown = await decisionShownInDetails(page);
  assert.match(shown, /YOUR_NAME/);
  const decision = shown.replace('YOUR_NAME', approver);
  try {
    await sendApproveFromWebUi(page, decision);

    // The goal continues: the call is approved as the pasted JSON says, runs, and the goal ends.
    const decided = await approvalDecided();
    assert.deepEqual(
      {
        callId: decided.data.callId,
        approved: decided.data.approved,
        approver: decided.data.approver,
        via: decided.data.via,
      },
      { callId, approved: true, approver, via: 'signal' },
    );
    // Polled, not awaited: a goal that did not continue fails the test instead of hanging it.
    const status = await eventually(async () => {
      const view = await handle.query(goalStatusQuery);
      return view.status === 'running' ? undefined : view;
    });
    assert.equal(status.status, 'completed');
    assert.deepEqual(status.pendingApprovals, []);
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal(result.counters.approvalsGranted, 1);
    await page
      .getByText('Completed', { exact: true })
      .first()
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    // The details panel keeps what it loaded ("Press R for freshness"); reloaded, it shows the end.
    await page.reload();
    await page.getByRole('tab', { name: 'User Metadata' }).click({ timeout: UI_TIMEOUT_MS });
    await currentDetailsFrame(page)
      .getByText(/^Goal completed/)
      .waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
  } finally {
    await screenshot('web-ui-approved.png');
  }
});
