import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { OFFSET_SLOTS } from '../../src/client/goal-events';
import { decisionLinkUrl, newDecisionLinkSecret, signDecisionLink } from '../../src/client/decision-link';
import { newInboxToken, parseApproverTokens, tokenHash } from '../../src/inbox/credentials';
import { temporalGoals } from '../../src/inbox/goals';
import { startInbox, type Inbox } from '../../src/inbox/server';
import { openUsedLinks } from '../../src/inbox/used-links';
import type { ScenarioInput } from '../../src/scripted-model/scenario';
import type { LedgerEvent } from '../../src/workflows/common/ledger';
import { goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { launchChromium } from '../support/browser';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

// The approval inbox in headless Chromium, on the real dev server with the strict scripted model:
// only an approver with a credential decides, only as the goal's policy allows, a link decides its
// one call once and never after it expires, and a form posted from another site decides nothing.

const GOALS = ['token', 'link', 'cross', 'bulk-a', 'bulk-b'];

function oneIrreversibleStep(name: string): ScenarioInput {
  return {
    name,
    match: `GOAL-INBOX-${name.toUpperCase()}`,
    turns: [
      {
        toolCalls: [
          { name: 'run_command', input: { command: `echo "<script>${name}</script>" >> effects.txt` } },
        ],
      },
      { text: `${name} finished` },
    ],
  };
}

const tokens = { alice: newInboxToken(), mallory: newInboxToken() };
const secret = Buffer.from(newDecisionLinkSecret(), 'utf8');
let harness: Harness;
let inbox: Inbox;
let browser: Browser;
let evil: Server;
const contexts: BrowserContext[] = [];
const log: string[] = [];

before(async () => {
  harness = await createHarness({ scenarios: GOALS.map(oneIrreversibleStep) });
  inbox = await startInbox({
    goals: temporalGoals(harness.client),
    approvers: parseApproverTokens(
      JSON.stringify({ alice: tokenHash(tokens.alice), mallory: tokenHash(tokens.mallory) }),
      'approvers',
    ),
    linkSecret: secret,
    usedLinks: openUsedLinks(tempDirectory('keel-inbox-links-')),
    port: 0,
    log: (line) => log.push(line),
  });
  browser = await launchChromium();
  // Another site (another port is another origin) whose page posts a decision to the inbox.
  evil = createServer((_request, response) => {
    response.writeHead(200, { 'Content-Type': 'text/html' });
    response.end(evilPage);
  });
  await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
});

let evilPage = '';

after(async () => {
  for (const context of contexts) await context.close();
  await browser?.close();
  await inbox?.close();
  await new Promise<void>((resolve) => (evil ? evil.close(() => resolve()) : resolve()));
  await harness?.close();
  await stopOwnServer();
});

async function startGoal(name: string) {
  const workspace = tempDirectory('keel-inbox-ws-');
  const handle = await harness.client.workflow.start(goalWorkflow, {
    taskQueue: harness.taskQueue,
    workflowId: `inbox-${name}-${Date.now()}`,
    // With network allowed every run_command is irreversible: it waits for a human. Alice only.
    args: [
      {
        goal: `GOAL-INBOX-${name.toUpperCase()}: append a line`,
        workspace,
        sandbox: { network: true },
        approvers: { irreversible: ['alice'] },
      },
    ],
  });
  const callId = await eventually(
    async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId,
  );
  return { handle, callId };
}

type Goal = Awaited<ReturnType<typeof startGoal>>;

async function newPage(): Promise<Page> {
  const context = await browser.newContext();
  contexts.push(context);
  return context.newPage();
}

async function signIn(page: Page, token: string): Promise<void> {
  await page.goto(new URL('/login', inbox.url).toString());
  await page.fill('input[name=token]', token);
  await Promise.all([page.waitForLoadState(), page.click('form#login button')]);
}

const decided = async (goal: Goal) =>
  (await goal.handle.query(ledgerQuery, {})).filter(
    (event: LedgerEvent) => event.kind === 'approval.decided',
  );

async function stillWaits(goal: Goal): Promise<void> {
  const view = await goal.handle.query(goalStatusQuery);
  assert.deepEqual(
    view.pendingApprovals.map((call) => call.callId),
    [goal.callId],
  );
  assert.deepEqual(await decided(goal), [], 'nothing was decided');
}

const card = (page: Page, goal: Goal) =>
  page.locator(`section.call[data-goal="${goal.handle.workflowId}"][data-call="${goal.callId}"]`);

test('a wrong token signs in nobody; an approver the policy refuses decides nothing; alice approves with a reason', async () => {
  await harness.withWorker(async () => {
    const goal = await startGoal('token');
    const stranger = await newPage();
    await signIn(stranger, newInboxToken());
    assert.match(await stranger.locator('[role=alert]').innerText(), /not an approver's token/);
    await stranger.goto(inbox.url);
    assert.ok(stranger.url().endsWith('/login'), 'the list is not shown without signing in');

    const mallory = await newPage();
    await signIn(mallory, tokens.mallory);
    assert.equal(await mallory.getByTestId('approver').innerText(), 'mallory');
    await card(mallory, goal).locator('button.approve').click();
    assert.match(
      await mallory.getByTestId('outcome').innerText(),
      /refused: .*mallory may not decide irreversible calls/,
    );
    await stillWaits(goal);

    const alice = await newPage();
    await signIn(alice, tokens.alice);
    const call = card(alice, goal);
    // The whole call, shown as text: the model's markup is not run.
    assert.match(await call.locator('pre.whole-call').innerText(), /<script>token<\/script>/);
    assert.match(await call.locator('p.why').innerText(), /why it waits/);
    await call.locator('input[name=reason]').fill('checked the line it appends');
    await call.locator('button.approve').click();
    assert.match(await alice.getByTestId('outcome').innerText(), /approved: /);
    const result = await goal.handle.result();
    assert.equal(result.status, 'completed');
    const [event] = await decided(goal);
    assert.equal(event?.data.approver, 'alice');
    assert.equal(event?.data.origin, 'inbox 127.0.0.1, token');
    assert.equal(event?.data.reason, 'checked the line it appends');
  });
});

test('a link decides in two clicks, once; a replayed link and an expired one are refused', async () => {
  await harness.withWorker(async () => {
    const goal = await startGoal('link');
    const claims = { goalId: goal.handle.workflowId, callId: goal.callId, approver: 'alice' };
    const expired = decisionLinkUrl(
      inbox.url,
      signDecisionLink({ ...claims, expiresAt: Date.now() - 1 }, secret),
    );
    const forged = decisionLinkUrl(
      inbox.url,
      signDecisionLink({ ...claims, expiresAt: Date.now() + 600_000 }, Buffer.alloc(32, 7)),
    );
    const link = decisionLinkUrl(
      inbox.url,
      signDecisionLink({ ...claims, expiresAt: Date.now() + 600_000 }, secret),
    );

    const late = await newPage();
    await late.goto(expired);
    assert.match(await late.getByTestId('outcome').innerText(), /this link has expired/);
    await late.goto(forged);
    assert.match(await late.getByTestId('outcome').innerText(), /this link is not valid/);
    await stillWaits(goal);

    const approver = await newPage();
    await approver.goto(link); // click 1: the link in the notification
    const opened = approver.url();
    await card(approver, goal).locator('button.approve').click(); // click 2
    assert.match(await approver.getByTestId('outcome').innerText(), /approved: /);
    assert.equal((await goal.handle.result()).status, 'completed');
    const [event] = await decided(goal);
    assert.equal(event?.data.approver, 'alice');
    assert.equal(event?.data.origin, 'inbox 127.0.0.1, link');

    const replay = await newPage();
    await replay.goto(opened);
    assert.match(await replay.getByTestId('outcome').innerText(), /this link was used already/);
    assert.equal((await decided(goal)).length, 1);
  });
});

test('a form posted from another site, or without the session token, decides nothing', async () => {
  await harness.withWorker(async () => {
    const goal = await startGoal('cross');
    const alice = await newPage();
    await signIn(alice, tokens.alice);
    const target = new URL('/decide', inbox.url).toString();
    const fields = `<input name="goal" value="${goal.handle.workflowId}"><input name="call" value="${goal.callId}"><input name="decision" value="approve">`;
    // The victim's browser, signed in, visits a page elsewhere that submits a form to the inbox.
    evilPage = `<form id="f" method="post" action="${target}">${fields}</form><script>document.getElementById('f').submit()</script>`;
    const { port } = evil.address() as AddressInfo;
    await Promise.all([alice.waitForURL(target), alice.goto(`http://127.0.0.1:${port}/`)]);
    assert.match(await alice.getByTestId('outcome').innerText(), /another site|no valid token/);
    // From the inbox's own page, with its cookie, but without the form's token.
    const status = await alice.evaluate(
      async (body) => {
        const response = await fetch('/decide', { method: 'POST', body: new URLSearchParams(body) });
        return response.status;
      },
      { goal: goal.handle.workflowId, call: goal.callId, decision: 'approve' },
    );
    assert.equal(status, 403);
    // The right token, but sent with a foreign Origin (as a script elsewhere would have to).
    await alice.goto(inbox.url);
    const csrf = await card(alice, goal).locator('input[name=csrf]').inputValue();
    const cookies = await alice.context().cookies();
    const foreign = await fetch(target, {
      method: 'POST',
      headers: {
        Origin: `http://127.0.0.1:${port}`,
        Cookie: cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; '),
        'Content-Type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({
        csrf,
        goal: goal.handle.workflowId,
        call: goal.callId,
        decision: 'approve',
      }),
    });
    assert.equal(foreign.status, 403);
    await stillWaits(goal);
    await card(alice, goal).locator('button.deny').click();
    assert.match(await alice.getByTestId('outcome').innerText(), /denied: /);
  });
});

test('bulk: the chosen calls of two goals are approved in one click; the goal page shows its live events', async () => {
  await harness.withWorker(async () => {
    const first = await startGoal('bulk-a');
    const second = await startGoal('bulk-b');
    const alice = await newPage();
    await signIn(alice, tokens.alice);
    await alice.goto(new URL(`/goals/${encodeURIComponent(first.handle.workflowId)}`, inbox.url).toString());
    await alice.locator('#events li code', { hasText: 'approval.requested' }).waitFor();
    const events = await newPage();
    await signIn(events, tokens.alice);
    await events.goto(new URL(`/goals/${encodeURIComponent(first.handle.workflowId)}`, inbox.url).toString());
    await events.locator('#events li code', { hasText: 'approval.requested' }).waitFor();

    await alice.goto(inbox.url);
    await card(alice, first).locator('input[type=checkbox][name=call]').check();
    await card(alice, second).locator('input[type=checkbox][name=call]').check();
    await alice.fill('form#bulk input[name=reason]', 'both append a line');
    await alice.click('form#bulk button[value=approve]');
    const outcome = await alice.getByTestId('outcome').innerText();
    assert.match(outcome, new RegExp(`${first.handle.workflowId}: approved: `));
    assert.match(outcome, new RegExp(`${second.handle.workflowId}: approved: `));
    for (const goal of [first, second]) {
      assert.equal((await goal.handle.result()).status, 'completed');
      const [event] = await decided(goal);
      assert.equal(event?.data.origin, 'inbox 127.0.0.1, token');
      assert.equal(event?.data.reason, 'both append a line');
    }
    // The open goal page got the decision as it happened (Server-Sent Events), without a reload.
    await events.locator('#events li code', { hasText: 'approval.decided' }).waitFor();
    // A viewer that reconnects with Last-Event-ID gets every event after it, and the end.
    const requested = (await first.handle.query(ledgerQuery, {})).find(
      (event: LedgerEvent) => event.kind === 'approval.requested',
    );
    assert.ok(requested);
    const resumedAfter = requested.sequence * OFFSET_SLOTS;
    const cookies = await events.context().cookies();
    const stream = await fetch(
      new URL(`/goals/${encodeURIComponent(first.handle.workflowId)}/events`, inbox.url),
      {
        headers: {
          Cookie: cookies.map((cookie) => `${cookie.name}=${cookie.value}`).join('; '),
          'Last-Event-ID': String(resumedAfter),
        },
      },
    );
    const text = await stream.text(); // the goal has ended: the stream ends too
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    assert.ok(
      ids.length > 0 && ids.every((id) => id > resumedAfter),
      `ids after ${resumedAfter}: ${ids.join(', ')}`,
    );
    assert.match(text, /"kind":"approval.decided"/);
    assert.doesNotMatch(text, /"kind":"approval.requested"/);
    assert.match(text, /event: end/);
    assert.ok(
      log.every((line) => !line.includes(tokens.alice) && !line.includes(tokens.mallory)),
      'no token in the log',
    );
  });
});
