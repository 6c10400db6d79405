import assert from 'node:assert/strict';
import type { WorkflowHandleWithFirstExecutionRunId } from '@temporalio/client';
import { Worker } from '@temporalio/worker';
import type { Browser, Page } from 'playwright-core';
import type { LedgerEvent } from '../../src/workflows/common/ledger';
import { goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import type { goalWorkflow } from '../../src/workflows/goal/workflow';
import { eventually, workflowBundle } from './temporal';

/**
 * Driving the approval inbox in Chromium and watching the goals it decides: a signed-in page, a
 * call's card and its buttons, and what the goal says about its waiting calls afterwards.
 */

export type GoalHandle = WorkflowHandleWithFirstExecutionRunId<typeof goalWorkflow>;

/** The id of the call waiting with this command; waits for the goal to ask it. */
export const waitingCall = (goal: GoalHandle, command: string) =>
  eventually(
    async () =>
      (await goal.query(goalStatusQuery)).pendingApprovals.find(
        (call) => call.summary === `run_command: ${command}`,
      )?.callId,
    60_000,
  );

/** How the goal ended; a goal still waiting a minute on fails the test rather than hang it. */
export async function ended(goal: GoalHandle): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`${goal.workflowId} did not end`)), 60_000);
  });
  try {
    return (await Promise.race([goal.result(), late])).status;
  } finally {
    clearTimeout(timer);
  }
}

/** The goal's history replays: what the inbox sent (refused Updates included) is deterministic. */
export async function replays(goal: GoalHandle): Promise<void> {
  await Worker.runReplayHistory(
    { workflowBundle: await workflowBundle() },
    await goal.fetchHistory(),
    goal.workflowId,
  );
}

export const decided = async (goal: GoalHandle): Promise<LedgerEvent[]> =>
  (await goal.query(ledgerQuery, {})).filter((event) => event.kind === 'approval.decided');

/** The call still waits and nothing decided it. */
export async function stillWaits(goal: GoalHandle, callId: string): Promise<void> {
  const view = await goal.query(goalStatusQuery);
  assert.ok(
    view.pendingApprovals.some((call) => call.callId === callId),
    `${callId} still waits`,
  );
  assert.deepEqual(
    (await decided(goal)).filter((event) => event.data.callId === callId),
    [],
    `nothing decided ${callId}`,
  );
}

/** A page of a browser context of its own, signed in to the inbox with the token. */
export async function signIn(browser: Browser, inboxUrl: string, token: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto(new URL('/login', inboxUrl).toString());
  await page.fill('input[name=token]', token);
  await Promise.all([page.waitForURL(inboxUrl), page.click('form#login button')]);
  return page;
}

export const card = (page: Page, goal: GoalHandle, callId: string) =>
  page.locator(`section.call[data-goal="${goal.workflowId}"][data-call="${callId}"]`);

/** Clicks a card's button on the page as it is; the outcome page's lines and its HTTP status. */
export async function decide(page: Page, goal: GoalHandle, callId: string, button: 'approve' | 'deny') {
  const [response] = await Promise.all([
    page.waitForResponse((each) => each.url().endsWith('/decide') && each.request().method() === 'POST'),
    card(page, goal, callId).locator(`button.${button}`).click(),
  ]);
  await page.waitForLoadState();
  return { status: response.status(), outcome: await page.getByTestId('outcome').innerText() };
}
