import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  NotificationConfigError,
  notificationDefaults,
  notifierSettingsFromEnv,
} from '../../src/activities/notifications/notifier-settings';
import { parseNamedChannels } from '../../src/activities/notifications/channels-file';
import { tempDirectory } from '../support/temp-directory';

/** Issue 46: the worker's named channels (KEEL_NOTIFY_CHANNELS_FILE), which goals name. */

const SECRET = 'a-webhook-secret-of-enough-bytes-0123';
const SLACK = 'https://hooks.slack.com/services/T0/B0/SECRETPATH';
const HOOK = 'https://hooks.example.com/keel/SECRETHOOK';
const SMTP = { KEEL_NOTIFY_SMTP_URL: 'smtp://mail.example.com', KEEL_NOTIFY_EMAIL_FROM: 'keel@example.com' };

function channelsFile(content: unknown): string {
  const file = path.join(tempDirectory('keel-channels-'), 'channels.json');
  writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return file;
}

/** The worker refuses the file in one line that names the variable, the file and the field, and no secret. */
function refused(content: unknown, pattern: RegExp, env: NodeJS.ProcessEnv = {}): void {
  const file = channelsFile(content);
  assert.throws(
    () => notifierSettingsFromEnv({ ...env, KEEL_NOTIFY_CHANNELS_FILE: file }),
    (error: unknown) => {
      assert.ok(error instanceof NotificationConfigError, String(error));
      assert.ok(error.message.startsWith(`KEEL_NOTIFY_CHANNELS_FILE ${file}`), error.message);
      assert.match(error.message, pattern);
      assert.equal(error.message.includes('\n'), false, 'one line');
      for (const secret of ['SECRETPATH', 'SECRETHOOK', SECRET])
        assert.equal(error.message.includes(secret), false, `no secret echoed: ${error.message}`);
      return true;
    },
  );
}

test('a channels file of each kind: the worker keeps them by name; goals learn no URL, name or key', () => {
  const file = channelsFile({
    'team-a': { slack: SLACK },
    oncall: { webhook: HOOK, secretEnv: 'ONCALL_SECRET' },
    'ops-mail': { email: ['ops@example.com', 'lead@example.com', 'ops@example.com'] },
  });
  const settings = notifierSettingsFromEnv({
    ...SMTP,
    KEEL_NOTIFY_CHANNELS_FILE: file,
    ONCALL_SECRET: SECRET,
  });
  assert.ok(settings?.named);
  assert.deepEqual([...settings.named.keys()], ['team-a', 'oncall', 'ops-mail']);
  const teamA = settings.named.get('team-a');
  assert.ok(teamA?.kind === 'slack' && teamA.url.href === SLACK);
  const oncall = settings.named.get('oncall');
  assert.ok(oncall?.kind === 'webhook' && oncall.url.href === HOOK);
  assert.equal(oncall.key.toString('utf8'), SECRET);
  assert.deepEqual(settings.named.get('ops-mail'), {
    kind: 'email',
    to: ['ops@example.com', 'lead@example.com'],
  });
  assert.equal(settings.named.get('constructor'), undefined, 'no name finds a prototype key');
  // The worker's own email channel comes with its SMTP server, as it always did.
  const defaults = notificationDefaults(settings);
  assert.deepEqual(defaults, { channels: ['email'], reminder: { share: 0.2 } });
  for (const secret of ['SECRETPATH', 'SECRETHOOK', SECRET, 'team-a', 'oncall'])
    assert.equal(JSON.stringify(defaults).includes(secret), false, secret);
});

test('a worker with named channels only tells goals none of its own, and its reminder', () => {
  const settings = notifierSettingsFromEnv({
    KEEL_NOTIFY_CHANNELS_FILE: channelsFile({ 'team-a': { slack: SLACK } }),
    KEEL_NOTIFY_REMINDER_BEFORE: '30m',
  });
  assert.deepEqual(notificationDefaults(settings), { channels: [], reminder: { beforeMs: 1_800_000 } });
  // An empty file: no channel at all, so goals learn nothing (and schedule nothing unless they name some).
  assert.equal(
    notificationDefaults(notifierSettingsFromEnv({ KEEL_NOTIFY_CHANNELS_FILE: channelsFile({}) })),
    undefined,
  );
  // Without the variable nothing changes: no settings at all.
  assert.equal(notifierSettingsFromEnv({ KEEL_NOTIFY_CHANNELS_FILE: ' ' }), undefined);
});

test('a file that cannot be read or is not JSON: its one line, never the text around the mistake', () => {
  assert.throws(
    () => notifierSettingsFromEnv({ KEEL_NOTIFY_CHANNELS_FILE: '/nonexistent/keel-channels.json' }),
    /^NotificationConfigError: KEEL_NOTIFY_CHANNELS_FILE \/nonexistent\/keel-channels.json cannot be read \(ENOENT\)$/,
  );
  refused(`{"team-a": {"slack": "${SLACK}",}}`, /: is not JSON \(at position \d+/);
  refused(`{"team-a": {"slack": ${SLACK}}}`, /: is not JSON/);
  refused(['team-a'], /: must be a JSON object of channels by name/);
  refused('"team-a"', /: must be a JSON object of channels by name/);
});

test('a bad channel names its field', () => {
  refused({ 'team a': { slack: SLACK } }, /: "team a" is not a channel name/);
  refused({ slack: { slack: SLACK } }, /: "slack" is the worker's own channel/);
  refused(
    { 'team-a': { slack: 'ftp://hooks.example.com/SECRETPATH' } },
    /: team-a\.slack: must be an http:\/\/ or https:\/\/ URL$/,
  );
  refused({ 'team-a': { slack: 'SECRETPATH' } }, /: team-a\.slack: must be an http:\/\/ or https:\/\/ URL$/);
  refused(
    { 'team-a': { slack: SLACK, webhook: HOOK } },
    /: team-a: a channel is one of slack, webhook or email, got slack and webhook$/,
  );
  refused({ 'team-a': {} }, /: team-a: a channel is one of slack, webhook or email, got none$/);
  refused({ 'team-a': 'https://x' }, /: team-a: Invalid input: expected object/);
  refused({ 'team-a': { slack: SLACK, channel: '#ops' } }, /: team-a: Unrecognized key: "channel"/);
  refused({ oncall: { webhook: HOOK } }, /: oncall\.secretEnv: a webhook needs secretEnv/);
  refused(
    { oncall: { webhook: HOOK, secret: SECRET } },
    /: oncall\.secret: keys stay out of the file: set secretEnv/,
  );
  refused(
    { oncall: { webhook: HOOK, secretEnv: 'NOT SET' } },
    /: oncall\.secretEnv: must be the name of an environment variable$/,
  );
  refused(
    { oncall: { webhook: HOOK, secretEnv: 'ONCALL_SECRET' } },
    /: oncall\.secretEnv: ONCALL_SECRET is not set$/,
  );
  refused(
    { oncall: { webhook: HOOK, secretEnv: 'ONCALL_SECRET' } },
    /: oncall\.secretEnv: ONCALL_SECRET must be at least 24 bytes, got 5$/,
    { ONCALL_SECRET: 'short' },
  );
  refused(
    { 'team-a': { slack: SLACK, secretEnv: 'X' } },
    /: team-a\.secretEnv: only a webhook has a secretEnv$/,
  );
  refused({ 'ops-mail': { email: [] } }, /: ops-mail\.email: must list at least one address$/, SMTP);
  refused(
    { 'ops-mail': { email: ['ops@example.com', 'ann'] } },
    /: ops-mail\.email\.1: "ann" is not a plain email address/,
    SMTP,
  );
  refused(
    { 'ops-mail': { email: ['ops@example.com'] } },
    /: ops-mail\.email: an email channel sends over the worker’s SMTP server: set KEEL_NOTIFY_SMTP_URL/,
  );
});

test('parseNamedChannels names the source it is given', () => {
  assert.throws(
    () => parseNamedChannels('[]', { source: 'channels.json', env: {}, smtp: false }),
    /^NotificationConfigError: channels\.json: must be a JSON object/,
  );
  assert.equal(parseNamedChannels('{}', { source: 'x', env: {}, smtp: false }).size, 0);
});
