import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import {
  decisionLinks,
  namedApprovers,
  plainText,
  slackMessage,
  webhookPayload,
} from '../../src/activities/notifications/notice-message';
import {
  createNotificationActivities,
  emailRecipients,
} from '../../src/activities/notifications/notification-activities';
import {
  signedWebhookHeaders,
  verifyWebhook,
  webhookSecretBytes,
} from '../../src/activities/notifications/standard-webhooks';
import { verifyDecisionLink } from '../../src/client/decision-link';
import { noticeChanges, type ApprovalNotice } from '../../src/workflows/approvals/notifications';

const inboxSecret = Buffer.from('an-inbox-secret-of-at-least-thirty-two-bytes');

const notice: ApprovalNotice = {
  kind: 'waiting',
  goalId: 'goal-7',
  goal: 'clean the build',
  callId: 'call-3',
  toolName: 'run_command',
  summary: 'run_command: rm -rf build',
  call: 'rm -rf build <all>',
  reversibility: 'irreversible',
  whyItWaits: 'run_command is irreversible, and irreversible calls always wait for a human',
  requestedAt: '2026-12-03T07:00:00.000Z',
  deadline: '2026-12-03T08:00:00.000Z',
  approvers: ['ann', 'bob@example.com'],
  signed: false,
};
const context = {
  namespace: 'default',
  webUiBase: 'http://localhost:8233',
  inbox: { url: 'http://inbox.test/', secret: inboxSecret },
};

test('the Standard Webhooks test vector: id.timestamp.body under the whsec_ key', () => {
  // The spec libraries' own vector (standard-webhooks/standard-webhooks, libraries/*/tests).
  const key = webhookSecretBytes('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
  const headers = signedWebhookHeaders(key, {
    id: 'msg_p5jXN8AQM9LWM0D4loKWxJek',
    timestampSeconds: 1614265330,
    body: '{"test": 2432232314}',
  });
  assert.equal(headers['webhook-signature'], 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  assert.equal(headers['webhook-timestamp'], '1614265330');
});

test('a receiver takes a fresh signed message and refuses a changed, old, early or unsigned one', () => {
  const key = webhookSecretBytes('a-webhook-secret-of-enough-bytes-0123');
  const body = '{"type":"approval.waiting"}';
  const headers = signedWebhookHeaders(key, { id: 'msg_1', timestampSeconds: 1_000_000, body });
  const at = (nowSeconds: number) => ({ nowSeconds });
  assert.deepEqual(verifyWebhook(key, headers, body, at(1_000_100)), {
    ok: true,
    id: 'msg_1',
    timestampSeconds: 1_000_000,
  });
  assert.deepEqual(verifyWebhook(key, headers, `${body} `, at(1_000_000)), {
    ok: false,
    reason: 'bad-signature',
  });
  assert.deepEqual(
    verifyWebhook(Buffer.from('another-key-of-enough-bytes-000'), headers, body, at(1_000_000)),
    { ok: false, reason: 'bad-signature' },
  );
  assert.deepEqual(verifyWebhook(key, headers, body, at(1_000_301)), { ok: false, reason: 'too-old' });
  assert.equal(verifyWebhook(key, headers, body, at(1_000_300)).ok, true, 'five minutes is still in');
  assert.deepEqual(verifyWebhook(key, headers, body, at(999_699)), { ok: false, reason: 'too-new' });
  assert.deepEqual(verifyWebhook(key, { ...headers, 'webhook-signature': undefined }, body, at(1_000_000)), {
    ok: false,
    reason: 'missing-headers',
  });
  assert.deepEqual(verifyWebhook(key, { ...headers, 'webhook-timestamp': '1e6' }, body, at(1_000_000)), {
    ok: false,
    reason: 'bad-timestamp',
  });
  // A replay with a new timestamp under the old signature fails: the timestamp is signed.
  assert.deepEqual(verifyWebhook(key, { ...headers, 'webhook-timestamp': '1000200' }, body, at(1_000_200)), {
    ok: false,
    reason: 'bad-signature',
  });
  const several = { ...headers, 'webhook-signature': `v1,bm90IGl0 ${headers['webhook-signature']}` };
  assert.equal(verifyWebhook(key, several, body, at(1_000_000)).ok, true, 'any of several signatures');
});

test('links: the CLI commands, the Web UI page and a signed one-time inbox link per named approver', () => {
  const links = decisionLinks(notice, context, namedApprovers(notice));
  assert.equal(links.approve, 'keel approve goal-7 call-3');
  assert.equal(links.deny, "keel deny goal-7 call-3 --reason 'why'");
  assert.equal(links.webUi, 'http://localhost:8233/namespaces/default/workflows/goal-7');
  assert.deepEqual(
    links.inbox.map((link) => link.approver),
    ['ann', 'bob@example.com'],
  );
  const url = new URL(links.inbox[0]?.url ?? '');
  assert.equal(url.origin + url.pathname, 'http://inbox.test/decide');
  const check = verifyDecisionLink(
    url.searchParams.get('link') ?? '',
    inboxSecret,
    Date.parse(notice.requestedAt),
  );
  assert.ok(check.ok);
  assert.deepEqual(
    { goalId: check.claims.goalId, callId: check.claims.callId, approver: check.claims.approver },
    { goalId: 'goal-7', callId: 'call-3', approver: 'ann' },
  );
  assert.equal(check.claims.expiresAt, Date.parse(notice.deadline), 'the link lives as long as the wait');
  const anyone = decisionLinks(
    { ...notice, approvers: ['*'] },
    context,
    namedApprovers({ ...notice, approvers: ['*'] }),
  );
  assert.deepEqual(anyone.inbox, [], 'a link names an approver; "*" names nobody');
  const noInbox = decisionLinks(notice, { namespace: 'default' }, ['ann']);
  assert.deepEqual([noInbox.inbox, noInbox.webUi], [[], undefined]);
});

test('a goal that requires signed decisions gets no inbox link and a command that signs', () => {
  const links = decisionLinks({ ...notice, signed: true, goalId: "it's odd" }, context, ['ann']);
  assert.deepEqual(links.inbox, []);
  assert.equal(
    links.approve,
    `keel approve 'it'\\''s odd' call-3 --approver YOUR_NAME --sign-key YOUR_KEY_FILE`,
  );
});

test('the plain text says the call, why it waits, what it changes, until when, who and how to decide', () => {
  const text = plainText(notice, decisionLinks(notice, context, ['ann']));
  for (const part of [
    'goal: goal-7 (clean the build)',
    'call: call-3, run_command (irreversible)',
    '    rm -rf build <all>',
    `why it waits: ${notice.whyItWaits}`,
    'what it changes: what the call above does',
    'waits until: 2026-12-03T08:00:00.000Z (then it is denied)',
    'who may decide: ann, bob@example.com',
    '  in the inbox, as ann: http://inbox.test/decide?link=',
    '  keel approve goal-7 call-3',
    "  keel deny goal-7 call-3 --reason 'why'",
    '  in the Temporal Web UI: http://localhost:8233/namespaces/default/workflows/goal-7',
  ]) {
    assert.ok(text.includes(part), `${part}\n--- in ---\n${text}`);
  }
  assert.match(
    plainText({ ...notice, kind: 'reminder' }, decisionLinks(notice, context, [])),
    /^A call of a keel goal still waits for a human; it is denied at 2026-12-03T08:00:00.000Z/,
  );
  assert.match(
    plainText({ ...notice, approvers: ['*'] }, decisionLinks(notice, context, [])),
    /who may decide: anyone/,
  );
});

test('held changes are listed by kind, the rest counted', () => {
  const many = Array.from({ length: 25 }, (_, index) => `src/file-${index}.ts`);
  const changes = noticeChanges({
    deleted: ['old.txt'],
    modified: many,
    created: [],
    omitted: { created: 4 },
  });
  assert.equal(changes.modified.length, 20);
  assert.equal(changes.more, 5 + 4);
  const text = plainText({ ...notice, changes }, decisionLinks(notice, context, []));
  assert.ok(
    text.includes(
      'what it changes (held until it is approved):\n  deleted old.txt\n  modified src/file-0.ts',
    ),
  );
  assert.ok(text.includes('  and 9 more'));
});

test('Slack: a fallback text and blocks, with Slack control characters escaped and links as links', () => {
  const links = decisionLinks(notice, context, ['ann']);
  const message = slackMessage(notice, links);
  assert.equal(message.text, 'Approval needed: run_command: rm -rf build');
  const json = JSON.stringify(message.blocks);
  assert.ok(json.includes('rm -rf build &lt;all&gt;'), 'the call, escaped');
  assert.ok(json.includes(`<${links.inbox[0]?.url ?? ''}|Decide in the inbox as ann>`));
  assert.ok(
    json.includes(
      '<http://localhost:8233/namespaces/default/workflows/goal-7|Open the goal in the Temporal Web UI>',
    ),
  );
  assert.ok(json.includes('Why it waits: run_command is irreversible'));
  assert.equal((message.blocks as unknown[]).length, 4);
});

test('the webhook body is the notice and its links, typed by kind', () => {
  const body = JSON.parse(
    webhookPayload({ ...notice, kind: 'reminder' }, decisionLinks(notice, context, []), new Date(0)),
  ) as { type: string; timestamp: string; data: { callId: string; links: { approve: string } } };
  assert.equal(body.type, 'approval.reminder');
  assert.equal(body.timestamp, '1970-01-01T00:00:00.000Z');
  assert.equal(body.data.callId, 'call-3');
  assert.equal(body.data.links.approve, 'keel approve goal-7 call-3');
});

test('email goes to approvers named by address and to the worker recipients, once each', () => {
  assert.deepEqual(emailRecipients(notice, ['ops@example.com', 'bob@example.com']), [
    'bob@example.com',
    'ops@example.com',
  ]);
  assert.deepEqual(emailRecipients({ ...notice, approvers: ['*'] }, []), []);
});

test('delivery: a 5xx may pass (retried), another 4xx is a refusal (not retried), a missing channel is said', async () => {
  const answering = (status: number) =>
    createNotificationActivities({
      settings: { slack: { url: new URL('https://hooks.slack.test/services/SECRET') } },
      fetch: () => Promise.resolve(new Response('no', { status })),
      context: () => undefined,
    });
  const input = { channel: 'slack' as const, notice };
  await assert.rejects(answering(503).deliverApprovalNotice(input), (error: unknown) => {
    assert.ok(!(error instanceof ApplicationFailure), 'a plain error: Temporal retries it');
    assert.match(String(error), /answered HTTP 503/);
    assert.equal(String(error).includes('SECRET'), false, 'the URL path is not repeated');
    return true;
  });
  await assert.rejects(
    answering(429).deliverApprovalNotice(input),
    (error: unknown) => !(error instanceof ApplicationFailure),
  );
  await assert.rejects(answering(404).deliverApprovalNotice(input), (error: unknown) => {
    assert.ok(error instanceof ApplicationFailure && error.nonRetryable);
    assert.equal(error.type, 'NotificationRefused');
    return true;
  });
  const sent = await answering(200).deliverApprovalNotice(input);
  assert.equal(sent.channel, 'slack');
  assert.match(sent.to, /^webhook https:\/\/hooks\.slack\.test \[[0-9a-f]{8}\]$/);
  await assert.rejects(
    answering(200).deliverApprovalNotice({ channel: 'email', notice }),
    (error: unknown) => {
      assert.ok(error instanceof ApplicationFailure && error.nonRetryable);
      assert.equal(error.type, 'NotificationChannelNotConfigured');
      return true;
    },
  );
});
