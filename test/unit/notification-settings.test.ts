import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  NotificationConfigError,
  notificationDefaults,
  notifierSettingsFromEnv,
  parseReminderLead,
} from '../../src/activities/notifications/notifier-settings';
import { reminderDueMs } from '../../src/workflows/approvals/notifications';

const SECRET = 'a-webhook-secret-of-enough-bytes-0123';
const INBOX_SECRET = 'an-inbox-secret-of-at-least-thirty-two-bytes';

function refused(env: NodeJS.ProcessEnv, pattern: RegExp, secretText?: string): void {
  assert.throws(
    () => notifierSettingsFromEnv(env),
    (error: unknown) => {
      assert.ok(error instanceof NotificationConfigError, String(error));
      assert.match(error.message, pattern);
      assert.equal(error.message.includes('\n'), false, 'one line');
      if (secretText !== undefined)
        assert.equal(error.message.includes(secretText), false, 'no secret echoed');
      return true;
    },
  );
}

test('no channel configured: no settings, and goals learn of none', () => {
  assert.equal(notifierSettingsFromEnv({}), undefined);
  assert.equal(
    notifierSettingsFromEnv({ KEEL_NOTIFY_WEBHOOK_URL: '  ', KEEL_NOTIFY_EMAIL_TO: 'a@b.c' }),
    undefined,
  );
  assert.equal(notificationDefaults(undefined), undefined);
});

test('every channel from the environment; goals learn the names and the reminder, no secret', () => {
  const settings = notifierSettingsFromEnv({
    KEEL_NOTIFY_WEBHOOK_URL: 'https://hooks.example.com/keel',
    KEEL_NOTIFY_WEBHOOK_SECRET: SECRET,
    KEEL_NOTIFY_SLACK_WEBHOOK_URL: 'https://hooks.slack.com/services/T/B/X',
    KEEL_NOTIFY_SMTP_URL: 'smtp://user:pass@mail.example.com:587',
    KEEL_NOTIFY_EMAIL_FROM: 'keel@example.com',
    KEEL_NOTIFY_EMAIL_TO: 'ops@example.com, lead@example.com,',
    KEEL_NOTIFY_REMINDER_BEFORE: '30m',
    KEEL_INBOX_URL: 'https://inbox.example.com/',
    KEEL_INBOX_SECRET: INBOX_SECRET,
    KEEL_WEB_UI_URL: 'http://localhost:8233/',
  });
  assert.ok(settings);
  assert.equal(settings.webhook?.key.toString('utf8'), SECRET);
  assert.equal(settings.slack?.url.hostname, 'hooks.slack.com');
  assert.deepEqual(settings.email?.to, ['ops@example.com', 'lead@example.com']);
  assert.equal(settings.email?.from, 'keel@example.com');
  assert.equal(settings.inbox?.url, 'https://inbox.example.com/');
  assert.equal(settings.webUiBase, 'http://localhost:8233');
  const defaults = notificationDefaults(settings);
  assert.deepEqual(defaults, { channels: ['webhook', 'slack', 'email'], reminder: { beforeMs: 1_800_000 } });
  const text = JSON.stringify(defaults);
  for (const secret of [SECRET, 'pass', 'services/T/B/X', INBOX_SECRET])
    assert.equal(text.includes(secret), false);
});

test('a Standard Webhooks secret (whsec_ and base64) is decoded to its bytes', () => {
  const bytes = Buffer.alloc(32, 7);
  const settings = notifierSettingsFromEnv({
    KEEL_NOTIFY_WEBHOOK_URL: 'http://127.0.0.1:9/hook',
    KEEL_NOTIFY_WEBHOOK_SECRET: `whsec_${bytes.toString('base64')}`,
  });
  assert.deepEqual(settings?.webhook?.key, bytes);
  assert.deepEqual(notificationDefaults(settings), { channels: ['webhook'], reminder: { share: 0.2 } });
});

test('a bad value stops the worker in one line that names the variable and repeats no secret', () => {
  const webhook = { KEEL_NOTIFY_WEBHOOK_URL: 'https://hooks.example.com/secret-path' };
  refused(webhook, /KEEL_NOTIFY_WEBHOOK_SECRET must be set/);
  refused(
    { ...webhook, KEEL_NOTIFY_WEBHOOK_SECRET: 'short-secret' },
    /KEEL_NOTIFY_WEBHOOK_SECRET must be at least 24 bytes, got 12/,
    'short-secret',
  );
  refused(
    { KEEL_NOTIFY_WEBHOOK_URL: 'not a url/secret-path', KEEL_NOTIFY_WEBHOOK_SECRET: SECRET },
    /KEEL_NOTIFY_WEBHOOK_URL is not a valid URL/,
    'secret-path',
  );
  refused(
    { KEEL_NOTIFY_SLACK_WEBHOOK_URL: 'ftp://hooks.example.com/T/B/X' },
    /KEEL_NOTIFY_SLACK_WEBHOOK_URL must be http:\/\/ or https:\/\/, got ftp:\/\//,
    'T/B/X',
  );
  refused(
    { KEEL_NOTIFY_SMTP_URL: 'http://user:hunter2@mail' },
    /KEEL_NOTIFY_SMTP_URL must be smtp:\/\/ or smtps:\/\//,
    'hunter2',
  );
  refused(
    { KEEL_NOTIFY_SMTP_URL: 'smtp://user:hunter2@mail' },
    /KEEL_NOTIFY_EMAIL_FROM must be the sender's address/,
    'hunter2',
  );
  refused(
    {
      KEEL_NOTIFY_SMTP_URL: 'smtp://mail',
      KEEL_NOTIFY_EMAIL_FROM: 'keel@example.com',
      KEEL_NOTIFY_EMAIL_TO: 'ok@example.com, ann',
    },
    /KEEL_NOTIFY_EMAIL_TO entry 2 is not an email address: "ann"/,
  );
  refused(
    { ...webhook, KEEL_NOTIFY_WEBHOOK_SECRET: SECRET, KEEL_INBOX_URL: 'https://inbox.example.com' },
    /KEEL_INBOX_SECRET is not set: notifications link to the inbox/,
  );
  refused(
    {
      ...webhook,
      KEEL_NOTIFY_WEBHOOK_SECRET: SECRET,
      KEEL_INBOX_URL: 'https://inbox.example.com',
      KEEL_INBOX_SECRET: 'too-short',
    },
    /KEEL_INBOX_SECRET must be at least 32 bytes/,
    'too-short',
  );
  refused(
    { ...webhook, KEEL_NOTIFY_WEBHOOK_SECRET: SECRET, KEEL_NOTIFY_REMINDER_BEFORE: 'soon' },
    /KEEL_NOTIFY_REMINDER_BEFORE must be a share of the wait \(20%\), a duration before the deadline \(30m\) or off, got "soon"/,
  );
});

test('the reminder lead: a share of the wait by default, a share, a duration, or off', () => {
  assert.deepEqual(parseReminderLead(undefined), { share: 0.2 });
  assert.deepEqual(parseReminderLead(' '), { share: 0.2 });
  assert.deepEqual(parseReminderLead('25%'), { share: 0.25 });
  assert.deepEqual(parseReminderLead('2h'), { beforeMs: 7_200_000 });
  assert.equal(parseReminderLead('off'), undefined);
  assert.equal(parseReminderLead('0'), undefined);
  for (const bad of ['0%', '100%', '150%', '-5m', '5', 'tomorrow']) {
    assert.throws(() => parseReminderLead(bad), NotificationConfigError, bad);
  }
});

test('the reminder is due when the lead is left of the wait, never at or before the first notice', () => {
  const wait = { requestedAtMs: 1_000, deadlineMs: 101_000 };
  assert.equal(reminderDueMs(wait, { share: 0.2 }), 81_000);
  assert.equal(reminderDueMs(wait, { share: 0.5 }), 51_000);
  assert.equal(reminderDueMs(wait, { beforeMs: 30_000 }), 71_000);
  assert.equal(reminderDueMs(wait, { beforeMs: 99_999 }), 1_001);
  assert.equal(
    reminderDueMs(wait, { beforeMs: 100_000 }),
    undefined,
    'a lead as long as the wait: no reminder',
  );
  assert.equal(reminderDueMs(wait, { beforeMs: 3_600_000 }), undefined);
  assert.equal(reminderDueMs(wait, undefined), undefined);
});
