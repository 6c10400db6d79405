import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approveSignal, goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import type { LedgerEvent } from '../../src/workflows/common/ledger';
import { notifierSettingsFromEnv } from '../../src/activities/notifications/notifier-settings';
import { verifyWebhook, webhookSecretBytes } from '../../src/activities/notifications/standard-webhooks';
import {
  newDecisionLinkSecret,
  decisionLinkSecret,
  verifyDecisionLink,
} from '../../src/client/decision-link';
import type { ScenarioInput } from '../../src/scripted-model/scenario';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';
import {
  closedPort,
  startHttpReceiver,
  startSmtpReceiver,
  type HttpReceiver,
  type ReceivedRequest,
  type SmtpReceiver,
} from '../support/notification-receivers';

const WEBHOOK_SECRET = 'a-webhook-secret-of-enough-bytes-0123';
const webhookKey = webhookSecretBytes(WEBHOOK_SECRET);
const inboxSecretText = newDecisionLinkSecret();
const inboxSecret = decisionLinkSecret(inboxSecretText);

function oneIrreversibleCall(name: string): ScenarioInput {
  return {
    name,
    match: `GOAL-${name.toUpperCase()}`,
    turns: [
      { toolCalls: [{ name: 'run_command', input: { command: 'echo ran >> effects.txt' } }] },
      { text: 'done' },
    ],
  };
}

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await stopOwnServer();
});

async function receivers(): Promise<{ http: HttpReceiver; smtp: SmtpReceiver }> {
  const http = await startHttpReceiver(webhookKey);
  cleanups.push(() => http.close());
  const smtp = await startSmtpReceiver();
  cleanups.push(() => smtp.close());
  return { http, smtp };
}

async function harnessWith(scenario: ScenarioInput, env: NodeJS.ProcessEnv): Promise<Harness> {
  const notifications = notifierSettingsFromEnv(env);
  assert.ok(notifications);
  const harness = await createHarness({ scenarios: [scenario], notifications });
  cleanups.push(() => harness.close());
  return harness;
}

async function startGoal(harness: Harness, goal: string, approvalTimeoutMs?: number) {
  return harness.client.workflow.start(goalWorkflow, {
    taskQueue: harness.taskQueue,
    workflowId: `${goal.toLowerCase()}-${Date.now()}`,
    // With network allowed every run_command is irreversible: the call waits for a human.
    args: [
      {
        goal: `${goal}: append a line`,
        workspace: tempDirectory('keel-ws-'),
        sandbox: { network: true },
        approvers: { irreversible: ['ann@example.com', 'bob'] },
        ...(approvalTimeoutMs === undefined ? {} : { limits: { approvalTimeoutMs } }),
      },
    ],
  });
}

type Handle = Awaited<ReturnType<typeof startGoal>>;

async function pendingCallId(handle: Handle): Promise<string> {
  return eventually(async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId);
}

const ledgerOf = (handle: Handle): Promise<LedgerEvent[]> => handle.query(ledgerQuery, {});
const kindOf = (request: ReceivedRequest) => (JSON.parse(request.body) as { type?: string }).type;
const slackText = (request: ReceivedRequest) => (JSON.parse(request.body) as { text: string }).text;

test('a waiting call reaches the signed webhook, Slack and email, and a reminder comes before its timeout', async () => {
  const { http, smtp } = await receivers();
  const harness = await harnessWith(oneIrreversibleCall('notify'), {
    KEEL_NOTIFY_WEBHOOK_URL: http.url('/hook'),
    KEEL_NOTIFY_WEBHOOK_SECRET: WEBHOOK_SECRET,
    KEEL_NOTIFY_SLACK_WEBHOOK_URL: http.url('/slack'),
    KEEL_NOTIFY_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
    KEEL_NOTIFY_EMAIL_FROM: 'keel@example.com',
    KEEL_NOTIFY_EMAIL_TO: 'ops@example.com',
    KEEL_NOTIFY_REMINDER_BEFORE: '50%',
    KEEL_INBOX_URL: 'http://127.0.0.1:9/inbox/',
    KEEL_INBOX_SECRET: inboxSecretText,
    KEEL_WEB_UI_URL: 'http://localhost:8233',
  });
  await harness.withWorker(async () => {
    const handle = await startGoal(harness, 'GOAL-NOTIFY', 30_000);
    const callId = await pendingCallId(handle);
    const hooks = (type: string) => http.requests.filter((r) => r.path === '/hook' && kindOf(r) === type);
    const slacks = (lead: string) =>
      http.requests.filter((r) => r.path === '/slack' && slackText(r).startsWith(lead));
    const mails = (lead: string) => smtp.messages.filter((m) => m.text.includes(`Subject: keel: ${lead}`));

    await eventually(
      () =>
        Promise.resolve(
          hooks('approval.waiting').length > 0 &&
            slacks('Approval needed').length > 0 &&
            mails('Approval needed').length === 2,
        ),
      60_000,
    );
    const [hook] = hooks('approval.waiting');
    assert.ok(hook?.check?.ok, `the receiver verified the signature: ${JSON.stringify(hook?.check)}`);
    assert.equal(hook.status, 204);
    const payload = JSON.parse(hook.body) as {
      data: {
        callId: string;
        goalId: string;
        whyItWaits: string;
        links: { inbox: { approver: string; url: string }[]; approve: string; webUi: string };
      };
    };
    assert.equal(payload.data.callId, callId);
    assert.equal(payload.data.goalId, handle.workflowId);
    assert.equal(payload.data.whyItWaits, 'the goal allows network access');
    assert.equal(payload.data.links.approve, `keel approve ${handle.workflowId} ${callId}`);
    assert.equal(
      payload.data.links.webUi,
      `http://localhost:8233/namespaces/default/workflows/${handle.workflowId}`,
    );
    assert.deepEqual(
      payload.data.links.inbox.map((link) => link.approver),
      ['ann@example.com', 'bob'],
    );
    const token = new URL(payload.data.links.inbox[1]?.url ?? '').searchParams.get('link') ?? '';
    const link = verifyDecisionLink(token, inboxSecret, Date.now());
    assert.ok(
      link.ok &&
        link.claims.approver === 'bob' &&
        link.claims.callId === callId &&
        link.claims.goalId === handle.workflowId,
    );

    // Replays: the same request again is refused by its id; with a new timestamp its signature
    // fails; and five minutes on, a receiver that forgot the id refuses it as too old.
    const headers = {
      'content-type': 'application/json',
      'webhook-id': String(hook.headers['webhook-id']),
      'webhook-timestamp': String(hook.headers['webhook-timestamp']),
      'webhook-signature': String(hook.headers['webhook-signature']),
    };
    assert.equal(await http.post('/hook', headers, hook.body), 409);
    const now = String(Math.floor(Date.now() / 1000) + 1);
    assert.equal(await http.post('/hook', { ...headers, 'webhook-timestamp': now }, hook.body), 401);
    const sentAt = Number(headers['webhook-timestamp']);
    assert.deepEqual(verifyWebhook(webhookKey, headers, hook.body, { nowSeconds: sentAt + 301 }), {
      ok: false,
      reason: 'too-old',
    });

    const slack = JSON.stringify(JSON.parse(slacks('Approval needed')[0]?.body ?? '{}'));
    assert.ok(slack.includes(callId) && slack.includes('|Decide in the inbox as bob>'), slack);
    const toAnn = mails('Approval needed').find((m) => m.to.includes('ann@example.com'));
    const toOps = mails('Approval needed').find((m) => m.to.includes('ops@example.com'));
    assert.ok(toAnn && toOps, 'one email to the approver named by address, one to the worker recipient');
    const annToken = /decide\?link=([\w.-]+)/.exec(toAnn.text)?.[1] ?? '';
    const annLink = verifyDecisionLink(annToken, inboxSecret, Date.now());
    assert.ok(annLink.ok && annLink.claims.approver === 'ann@example.com', 'ann gets her own link');
    assert.ok(!toOps.text.includes('decide?link='), 'ops may not decide: no link');
    assert.ok(toOps.text.includes(`keel approve ${handle.workflowId} ${callId}`));

    // The figure the issue asks for (reported, not asserted): wait start to each channel.
    const requested = (await ledgerOf(handle)).find((event) => event.kind === 'approval.requested');
    assert.ok(requested);
    const startMs = Date.parse(requested.at);
    const figures = {
      webhook: hook.receivedAtMs - startMs,
      slack: (slacks('Approval needed')[0]?.receivedAtMs ?? NaN) - startMs,
      email: Math.max(...mails('Approval needed').map((m) => m.receivedAtMs)) - startMs,
    };
    console.log(`notification delivery after the call started waiting (ms): ${JSON.stringify(figures)}`);

    await eventually(
      () =>
        Promise.resolve(
          hooks('approval.reminder').length > 0 &&
            slacks('Reminder').length > 0 &&
            mails('Reminder').length === 2,
        ),
      60_000,
    );
    const reminder = hooks('approval.reminder')[0];
    assert.ok(reminder?.check?.ok);
    const deadline = Date.parse((JSON.parse(reminder.body) as { data: { deadline: string } }).data.deadline);
    assert.ok(reminder.receivedAtMs < deadline, 'the reminder came before the timeout');
    assert.equal((await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId, callId, 'still waiting');

    await handle.signal(approveSignal, { callId, approver: 'bob' });
    assert.equal((await handle.result()).status, 'completed');
    const ledger = await ledgerOf(handle);
    const sent = ledger
      .filter((event) => event.kind === 'notification.sent')
      .map((event) => `${String(event.data.notice)} ${String(event.data.channel)}`);
    assert.deepEqual(sent.sort(), [
      'reminder email',
      'reminder slack',
      'reminder webhook',
      'waiting email',
      'waiting slack',
      'waiting webhook',
    ]);
    assert.equal(ledger.filter((event) => event.kind === 'notification.failed').length, 0);
    const accepted = (type: string) => hooks(type).filter((r) => r.status === 204).length; // not the replays above
    assert.equal(accepted('approval.waiting'), 1, 'told once');
    assert.equal(accepted('approval.reminder'), 1, 'reminded once');
  });
});

test('channels that fail, refuse or hang delay and fail nothing; the ledger records the failed deliveries', async () => {
  const { http } = await receivers();
  const harness = await harnessWith(oneIrreversibleCall('down'), {
    KEEL_NOTIFY_WEBHOOK_URL: http.url('/down'),
    KEEL_NOTIFY_WEBHOOK_SECRET: WEBHOOK_SECRET,
    KEEL_NOTIFY_SLACK_WEBHOOK_URL: http.url('/hang'),
    KEEL_NOTIFY_SMTP_URL: `smtp://127.0.0.1:${await closedPort()}`,
    KEEL_NOTIFY_EMAIL_FROM: 'keel@example.com',
    KEEL_NOTIFY_REMINDER_BEFORE: 'off',
  });
  await harness.withWorker(async () => {
    const handle = await startGoal(harness, 'GOAL-DOWN');
    const callId = await pendingCallId(handle);
    const failed = await eventually(async () => {
      const events = (await ledgerOf(handle)).filter((event) => event.kind === 'notification.failed');
      const channels = events.map((event) => event.data.channel);
      return channels.includes('webhook') && channels.includes('email') ? events : undefined;
    }, 90_000);
    const webhook = failed.find((event) => event.data.channel === 'webhook');
    assert.match(String(webhook?.data.error), /answered HTTP 500/);
    assert.ok(!String(webhook?.data.error).includes('/down'), 'the URL path is not in the ledger');
    assert.equal(http.requests.filter((r) => r.path === '/down').length, 4, 'four attempts, then given up');
    assert.match(
      String(failed.find((event) => event.data.channel === 'email')?.data.error),
      /ECONNREFUSED|connect/i,
    );
    assert.ok(
      http.requests.some((r) => r.path === '/hang'),
      'the hanging channel was asked',
    );
    const view = await handle.query(goalStatusQuery);
    assert.equal(view.phase, 'awaiting-approval', 'the goal still waits for its human, unharmed');

    await handle.signal(approveSignal, { callId, approver: 'bob' });
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.ok(
      http.requests.filter((r) => r.path === '/hang').every((r) => r.status === undefined),
      'the goal completed while the hanging channel never answered',
    );
    // The hanging channel gives up only after four 10 s timeouts (over 40 s): a goal that waited
    // for its deliveries would have its failure in the ledger before it completed.
    const ledger = await ledgerOf(handle);
    assert.equal(
      ledger.filter((event) => event.kind.startsWith('notification.') && event.data.channel === 'slack')
        .length,
      0,
      'the goal did not wait for the hanging delivery',
    );
  });
});
