import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approveSignal, goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import type { GoalInput } from '../../src/workflows/goal/lifecycle/input';
import type { LedgerEvent } from '../../src/workflows/common/ledger';
import { notifierSettingsFromEnv } from '../../src/activities/notifications/notifier-settings';
import { webhookSecretBytes } from '../../src/activities/notifications/standard-webhooks';
import type { ScenarioInput } from '../../src/scripted-model/scenario';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';
import {
  startHttpReceiver,
  startSmtpReceiver,
  type HttpReceiver,
  type ReceivedRequest,
  type SmtpReceiver,
} from '../support/notification-receivers';

/**
 * Issue 46: a goal names channels the worker's channels file defines (KEEL_NOTIFY_CHANNELS_FILE)
 * and extra email recipients; they are ADDED to the worker's own channels. The team's receivers
 * (a Slack, a webhook with its own key) are other servers than the worker's own Slack, and the
 * goal's history holds their names, never their URLs or keys.
 */

const ONCALL_SECRET = 'the-oncall-webhook-secret-0123456789';
const WORKER_SECRET = 'the-worker-webhook-secret-0123456789';

const cleanups: (() => Promise<void>)[] = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
  await stopOwnServer();
});

interface Receivers {
  /** The worker's own Slack (/slack). */
  own: HttpReceiver;
  /** The channels file's: team-a's Slack (/slack) and the on-call webhook (/hook, its own key). */
  team: HttpReceiver;
  smtp: SmtpReceiver;
}

let shared: Promise<{ receivers: Receivers; harness: Harness }> | undefined;

/** One worker for the tests: its own Slack and email, and a channels file of three. */
function worker(): Promise<{ receivers: Receivers; harness: Harness }> {
  shared ??= (async () => {
    const own = await startHttpReceiver(webhookSecretBytes(WORKER_SECRET));
    const team = await startHttpReceiver(webhookSecretBytes(ONCALL_SECRET));
    const smtp = await startSmtpReceiver();
    cleanups.push(
      () => own.close(),
      () => team.close(),
      () => smtp.close(),
    );
    const file = path.join(tempDirectory('keel-channels-'), 'channels.json');
    writeFileSync(
      file,
      JSON.stringify({
        'team-a': { slack: team.url('/slack') },
        oncall: { webhook: team.url('/hook'), secretEnv: 'ONCALL_SECRET' },
        'ops-mail': { email: ['ops@example.com'] },
      }),
    );
    const notifications = notifierSettingsFromEnv({
      KEEL_NOTIFY_SLACK_WEBHOOK_URL: own.url('/slack'),
      KEEL_NOTIFY_SMTP_URL: `smtp://127.0.0.1:${smtp.port}`,
      KEEL_NOTIFY_EMAIL_FROM: 'keel@example.com',
      KEEL_NOTIFY_EMAIL_TO: 'feed@example.com',
      // The worker reminds nobody; a goal may ask for its own reminder.
      KEEL_NOTIFY_REMINDER_BEFORE: 'off',
      KEEL_NOTIFY_CHANNELS_FILE: file,
      ONCALL_SECRET,
    });
    assert.ok(notifications?.named?.size === 3);
    const harness = await createHarness({
      scenarios: [oneIrreversibleCall('GOAL-NAMED'), oneIrreversibleCall('GOAL-UNKNOWN')],
      notifications,
    });
    cleanups.push(() => harness.close());
    return { receivers: { own, team, smtp }, harness };
  })();
  return shared;
}

function oneIrreversibleCall(match: string): ScenarioInput {
  return {
    name: match.toLowerCase(),
    match,
    turns: [
      { toolCalls: [{ name: 'run_command', input: { command: 'echo ran >> effects.txt' } }] },
      { text: 'done' },
    ],
  };
}

async function startGoal(harness: Harness, goal: string, input: Partial<GoalInput>) {
  return harness.client.workflow.start(goalWorkflow, {
    taskQueue: harness.taskQueue,
    workflowId: `${goal.toLowerCase()}-${Date.now()}`,
    // With network allowed every run_command is irreversible: the call waits for a human.
    args: [
      {
        goal: `${goal}: append a line`,
        workspace: tempDirectory('keel-ws-'),
        sandbox: { network: true },
        approvers: { irreversible: ['bob'] },
        principles: { cadence: { every: 0 } },
        ...input,
      },
    ],
  });
}

type Handle = Awaited<ReturnType<typeof startGoal>>;

const pendingCallId = (handle: Handle) =>
  eventually(async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId);
const ledgerOf = (handle: Handle): Promise<LedgerEvent[]> => handle.query(ledgerQuery, {});
const notifications = async (handle: Handle, kind: 'notification.sent' | 'notification.failed') =>
  (await ledgerOf(handle))
    .filter((event) => event.kind === kind)
    .map((event) => `${String(event.data.notice)} ${String(event.data.channel)}`)
    .sort();
const kindOf = (request: ReceivedRequest) => (JSON.parse(request.body) as { type?: string }).type;
const slackText = (request: ReceivedRequest) => (JSON.parse(request.body) as { text: string }).text;

test("a goal's named channels and recipients are told beside the worker's own, and reminded on the goal's lead", async () => {
  const { receivers, harness } = await worker();
  const { own, team, smtp } = receivers;
  await harness.withWorker(async () => {
    const handle = await startGoal(harness, 'GOAL-NAMED', {
      limits: { approvalTimeoutMs: 30_000 },
      notify: {
        channels: ['team-a', 'oncall', 'ops-mail'],
        emailTo: ['carol@example.com'],
        reminder: { share: 0.5 },
      },
    });
    const callId = await pendingCallId(handle);
    const channels = ['email', 'oncall', 'ops-mail', 'slack', 'team-a'];
    // Every delivery ended, sent or not: a notice and a reminder on each of the five channels.
    await eventually(async () => {
      const ended = (await ledgerOf(handle)).filter((event) => event.kind.startsWith('notification.'));
      return ended.length >= 10;
    }, 90_000);
    assert.deepEqual(await notifications(handle, 'notification.sent'), [
      ...channels.map((channel) => `reminder ${channel}`),
      ...channels.map((channel) => `waiting ${channel}`),
    ]);
    assert.deepEqual(await notifications(handle, 'notification.failed'), []);

    // Each receiver got the notice and the reminder; the on-call webhook is signed with its own key.
    const slacks = (receiver: HttpReceiver, lead: string) =>
      receiver.requests.filter((r) => r.path === '/slack' && slackText(r).startsWith(lead));
    assert.equal(slacks(own, 'Approval needed').length, 1, "the worker's own Slack");
    assert.equal(slacks(own, 'Reminder').length, 1);
    assert.equal(slacks(team, 'Approval needed').length, 1, "team-a's Slack");
    assert.equal(slacks(team, 'Reminder').length, 1);
    const hooks = team.requests.filter((r) => r.path === '/hook');
    assert.deepEqual(hooks.map(kindOf).sort(), ['approval.reminder', 'approval.waiting']);
    assert.ok(
      hooks.every((hook) => hook.check?.ok && hook.status === 204),
      JSON.stringify(hooks.map((hook) => hook.check)),
    );
    const mails = (address: string, lead: string) =>
      smtp.messages.filter((m) => m.to.includes(address) && m.text.includes(`Subject: keel: ${lead}`));
    for (const address of ['feed@example.com', 'carol@example.com', 'ops@example.com']) {
      assert.equal(mails(address, 'Approval needed').length, 1, address);
      assert.equal(mails(address, 'Reminder').length, 1, address);
    }
    const reminder = hooks.find((hook) => kindOf(hook) === 'approval.reminder');
    const deadline = Date.parse(
      (JSON.parse(reminder?.body ?? '{}') as { data: { deadline: string } }).data.deadline,
    );
    assert.ok((reminder?.receivedAtMs ?? Infinity) < deadline, 'reminded before the deadline');

    // The ledger names the channel and its kind; the history holds no URL of a named channel, nor its key.
    const ledger = await ledgerOf(handle);
    const teamA = ledger.find(
      (event) => event.kind === 'notification.sent' && event.data.channel === 'team-a',
    );
    assert.equal(teamA?.data.via, 'slack');
    assert.match(teamA?.summary ?? '', /^notice sent by team-a: /);
    await handle.signal(approveSignal, { callId, approver: 'bob' });
    assert.equal((await handle.result()).status, 'completed');
    const history = payloadText(await handle.fetchHistory());
    assert.ok(history.includes('"team-a"'), 'the history names the channel');
    for (const secret of [team.url('/slack'), team.url('/hook'), ONCALL_SECRET, 'ONCALL_SECRET'])
      assert.equal(history.includes(secret), false, `the history holds no ${secret}`);
  });
});

test('a goal naming a channel no worker defines records notification.failed, and completes', async () => {
  const { receivers, harness } = await worker();
  await harness.withWorker(async () => {
    const handle = await startGoal(harness, 'GOAL-UNKNOWN', {
      notify: { channels: ['nowhere'], reminder: 'off' },
    });
    const callId = await pendingCallId(handle);
    const failed = await eventually(async () => {
      const events = (await ledgerOf(handle)).filter(
        (event) => event.kind === 'notification.failed' && event.data.channel === 'nowhere',
      );
      return events.length > 0 ? events : undefined;
    }, 60_000);
    assert.equal(
      failed[0]?.data.error,
      'this worker has no notification channel named "nowhere": its channels file names team-a, oncall, ops-mail',
    );
    assert.match(failed[0]?.summary ?? '', /^notice not delivered by nowhere: /);
    // The worker's own channels were told as ever, and the goal still waits for its human.
    await eventually(async () => (await notifications(handle, 'notification.sent')).length === 2);
    assert.deepEqual(await notifications(handle, 'notification.sent'), ['waiting email', 'waiting slack']);
    assert.ok(receivers.own.requests.some((r) => r.path === '/slack' && r.body.includes(callId)));
    assert.equal((await handle.query(goalStatusQuery)).phase, 'awaiting-approval');
    await handle.signal(approveSignal, { callId, approver: 'bob' });
    assert.equal((await handle.result()).status, 'completed');
    assert.equal((await notifications(handle, 'notification.failed')).length, 1, 'failed once, not retried');
  });
});

test('a bad channels file stops the worker before it connects, in one line naming the file and field', async () => {
  const file = path.join(tempDirectory('keel-channels-'), 'channels.json');
  writeFileSync(file, JSON.stringify({ oncall: { webhook: 'https://hooks.example.com/SECRETPATH' } }));
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve(__dirname, '../../src/worker.ts')], {
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      TEMPORAL_ADDRESS: '127.0.0.1:1', // never reached
      ANTHROPIC_API_KEY: 'test-key',
      KEEL_NOTIFY_CHANNELS_FILE: file,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  assert.equal(code, 1);
  assert.equal(
    stderr.trim(),
    `keel worker: KEEL_NOTIFY_CHANNELS_FILE ${file}: oncall.secretEnv: a webhook needs secretEnv, the environment variable holding its signing secret`,
  );
  assert.ok(!stderr.includes('SECRETPATH'));
});

/** Every payload of a history, decoded: what Temporal keeps of the goal. */
function payloadText(history: unknown): string {
  const parts: string[] = [];
  const visit = (value: unknown): void => {
    if (value instanceof Uint8Array) parts.push(Buffer.from(value).toString('utf8'));
    else if (Array.isArray(value)) value.forEach(visit);
    else if (typeof value === 'object' && value !== null) Object.values(value).forEach(visit);
  };
  visit(history);
  return parts.join('\n');
}
