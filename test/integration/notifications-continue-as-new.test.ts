import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDevServer, type DevServer } from '../../src/dev-server/dev-server';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approveSignal, goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import { notifierSettingsFromEnv } from '../../src/activities/notifications/notifier-settings';
import { webhookSecretBytes } from '../../src/activities/notifications/standard-webhooks';
import { createHarness, eventually, tempDirectory, type Harness } from '../support/temporal';
import {
  startHttpReceiver,
  type HttpReceiver,
  type ReceivedRequest,
} from '../support/notification-receivers';

// A server of its own: the low history threshold would otherwise touch every other test's goals.
let server: DevServer;
let http: HttpReceiver;
let harness: Harness;
const WEBHOOK_SECRET = 'a-webhook-secret-of-enough-bytes-0123';

before(async () => {
  server = await startDevServer({
    ephemeral: true,
    dynamicConfig: { 'limit.historyCount.suggestContinueAsNew': 30 },
  });
  http = await startHttpReceiver(webhookSecretBytes(WEBHOOK_SECRET));
  const notifications = notifierSettingsFromEnv({
    KEEL_NOTIFY_WEBHOOK_URL: http.url('/hook'),
    KEEL_NOTIFY_WEBHOOK_SECRET: WEBHOOK_SECRET,
    KEEL_NOTIFY_REMINDER_BEFORE: '50%',
  });
  assert.ok(notifications);
  harness = await createHarness({
    address: server.address,
    notifications,
    scenarios: [
      {
        name: 'carried',
        match: 'GOAL-CARRIED',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'echo ran >> effects.txt' } }] },
          { text: 'done' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await http.close();
  await server.stop();
});

const kindOf = (request: ReceivedRequest) => (JSON.parse(request.body) as { type?: string }).type;

test('a wait carried to a new run sends its notice once and its reminder once', async () => {
  await harness.withWorker(async () => {
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `carried-${Date.now()}`,
      args: [
        {
          goal: 'GOAL-CARRIED: append a line',
          workspace: tempDirectory('keel-ws-'),
          sandbox: { network: true },
          limits: { approvalTimeoutMs: 40_000 },
        },
      ],
    });
    const callId = await eventually(
      async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId,
    );
    // The first notice has ended (the goal recorded it) before the goal moves to a new run.
    await eventually(async () =>
      (await handle.query(ledgerQuery, {})).some((event) => event.kind === 'notification.sent'),
    );
    const runWhileWaiting = (await handle.describe()).runId;
    // Signals grow history while the goal waits (they name no pending call and are ignored),
    // until Temporal suggests continue-as-new in the middle of the wait.
    for (let index = 0; index < 30; index++) {
      await handle.signal(approveSignal, { callId: `unknown-${index}`, approver: 'test' });
    }
    await eventually(async () => {
      const description = await handle.describe();
      return description.runId !== runWhileWaiting || undefined;
    }, 30_000);
    await eventually(
      () => Promise.resolve(http.requests.some((r) => kindOf(r) === 'approval.reminder')),
      60_000,
    );
    await handle.signal(approveSignal, { callId, approver: 'ann' });
    assert.equal((await handle.result()).status, 'completed');

    const byKind = (type: string) => http.requests.filter((r) => kindOf(r) === type);
    assert.equal(byKind('approval.waiting').length, 1, 'the new run did not tell the approvers again');
    assert.equal(byKind('approval.reminder').length, 1, 'one reminder, sent by the new run');
    assert.ok(byKind('approval.reminder')[0]?.check?.ok);
    const sent = (await handle.query(ledgerQuery, {}))
      .filter((event) => event.kind === 'notification.sent')
      .map((event) => String(event.data.notice));
    assert.deepEqual(sent, ['waiting', 'reminder'], 'both in the ledger the goal carried');
  });
});
