import { parseDuration } from '../../workflows/common/duration';
import {
  DEFAULT_REMINDER_LEAD,
  isEmailAddress,
  NotificationChannel,
  type NotificationDefaults,
  type ReminderLead,
} from '../../workflows/approvals/notifications';
import { DECISION_LINK_SECRET_ENV, decisionLinkSecret } from '../../client/decision-link';
import { WEB_UI_URL_VARIABLE } from '../../client/web-ui';
import { webhookSecretBytes } from './standard-webhooks';
import { CHANNELS_FILE_VARIABLE, namedChannelsFromFile, type NamedChannel } from './channels-file';
import { NotificationConfigError } from './config-error';

/**
 * The worker's notification channels, from its environment (issue 46). The secrets (the webhook's
 * key, the SMTP password inside its URL, the inbox's link secret) stay here, on the worker: goals
 * learn only which channels exist and when to remind (notificationDefaults), which history keeps.
 */

export const NotifyVariable = {
  WebhookUrl: 'KEEL_NOTIFY_WEBHOOK_URL',
  WebhookSecret: 'KEEL_NOTIFY_WEBHOOK_SECRET',
  SlackWebhookUrl: 'KEEL_NOTIFY_SLACK_WEBHOOK_URL',
  SmtpUrl: 'KEEL_NOTIFY_SMTP_URL',
  EmailFrom: 'KEEL_NOTIFY_EMAIL_FROM',
  EmailTo: 'KEEL_NOTIFY_EMAIL_TO',
  ReminderBefore: 'KEEL_NOTIFY_REMINDER_BEFORE',
  InboxUrl: 'KEEL_INBOX_URL',
  ChannelsFile: CHANNELS_FILE_VARIABLE,
} as const;

export interface NotifierSettings {
  /** A JSON webhook signed the Standard Webhooks way. */
  webhook?: { url: URL; key: Buffer };
  /** A Slack (or Slack-compatible: Mattermost, Rocket.Chat) incoming webhook. */
  slack?: { url: URL };
  /** Email over SMTP: to approvers named by address, and to `to`. */
  email?: { smtpUrl: URL; from: string; to: string[] };
  /** Channels goals name (KEEL_NOTIFY_CHANNELS_FILE), by name; a Map, so no name finds a prototype's key. */
  named?: ReadonlyMap<string, NamedChannel>;
  /** When the reminder is due; absent: none. */
  reminder?: ReminderLead;
  /** The inbox that takes signed one-time decision links (`<url>/decide?link=…`). */
  inbox?: { url: string; secret: Buffer };
  /** The Temporal Web UI, for a link to the goal's page. */
  webUiBase?: string;
}

export { NotificationConfigError };

/** The channels the environment configures, or undefined when it configures none. */
export function notifierSettingsFromEnv(env: NodeJS.ProcessEnv): NotifierSettings | undefined {
  const read = (name: string) => {
    const value = env[name]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const webhookUrl = read(NotifyVariable.WebhookUrl);
  const slackUrl = read(NotifyVariable.SlackWebhookUrl);
  const smtpUrl = read(NotifyVariable.SmtpUrl);
  const channelsFile = read(NotifyVariable.ChannelsFile);
  if ([webhookUrl, slackUrl, smtpUrl, channelsFile].every((value) => value === undefined)) return undefined;
  const settings: NotifierSettings = {};
  if (webhookUrl !== undefined) {
    const secret = read(NotifyVariable.WebhookSecret);
    if (secret === undefined) {
      throw new NotificationConfigError(
        `${NotifyVariable.WebhookSecret} must be set with ${NotifyVariable.WebhookUrl}: receivers check the signature`,
      );
    }
    settings.webhook = { url: httpUrl(NotifyVariable.WebhookUrl, webhookUrl), key: webhookKey(secret) };
  }
  if (slackUrl !== undefined) settings.slack = { url: httpUrl(NotifyVariable.SlackWebhookUrl, slackUrl) };
  if (smtpUrl !== undefined) settings.email = emailSettings(smtpUrl, read);
  if (channelsFile !== undefined) {
    settings.named = namedChannelsFromFile(channelsFile, { env, smtp: settings.email !== undefined });
  }
  const reminder = parseReminderLead(read(NotifyVariable.ReminderBefore));
  if (reminder !== undefined) settings.reminder = reminder;
  const inboxUrl = read(NotifyVariable.InboxUrl);
  if (inboxUrl !== undefined) {
    let secret: Buffer;
    try {
      secret = decisionLinkSecret(env[DECISION_LINK_SECRET_ENV]);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw new NotificationConfigError(
        `${why}: notifications link to the inbox (${NotifyVariable.InboxUrl})`,
      );
    }
    settings.inbox = { url: httpUrl(NotifyVariable.InboxUrl, inboxUrl).href, secret };
  }
  const webUi = read(WEB_UI_URL_VARIABLE);
  if (webUi !== undefined) settings.webUiBase = webUi.replace(/\/+$/, '');
  return settings;
}

/**
 * What goals learn at their start: the worker's own channels and the reminder, nothing secret.
 * A worker with named channels only tells no channel of its own, and its reminder, for goals that
 * name some; its named channels are not listed: a goal names them, and the worker that delivers
 * a notice looks the name up then.
 */
export function notificationDefaults(
  settings: NotifierSettings | undefined,
): NotificationDefaults | undefined {
  if (settings === undefined) return undefined;
  const channels = [
    ...(settings.webhook ? [NotificationChannel.Webhook] : []),
    ...(settings.slack ? [NotificationChannel.Slack] : []),
    ...(settings.email ? [NotificationChannel.Email] : []),
  ];
  if (channels.length === 0 && (settings.named?.size ?? 0) === 0) return undefined;
  return { channels, ...(settings.reminder === undefined ? {} : { reminder: settings.reminder }) };
}

/**
 * KEEL_NOTIFY_REMINDER_BEFORE: `20%` (when a fifth of the wait is left: the default), a duration
 * before the deadline (`30m`, `2h`), or `off`.
 */
export function parseReminderLead(text: string | undefined): ReminderLead | undefined {
  if (text === undefined || text.trim() === '') return DEFAULT_REMINDER_LEAD;
  const value = text.trim();
  if (value === 'off' || value === '0') return undefined;
  const percent = /^(\d+(?:\.\d+)?)%$/.exec(value);
  if (percent) {
    const share = Number(percent[1]) / 100;
    if (share > 0 && share < 1) return { share };
  } else {
    const beforeMs = parseDuration(value);
    if (beforeMs !== undefined) return { beforeMs };
  }
  throw new NotificationConfigError(
    `${NotifyVariable.ReminderBefore} must be a share of the wait (20%), a duration before the deadline (30m) or off, got "${value}"`,
  );
}

/** A plain address: name@domain (shared with goal input, which names recipients too). */
export { isEmailAddress };

function emailSettings(smtpUrl: string, read: (name: string) => string | undefined) {
  let url: URL;
  try {
    url = new URL(smtpUrl);
  } catch {
    throw new NotificationConfigError(`${NotifyVariable.SmtpUrl} is not a valid URL`); // it may hold a password
  }
  if (url.protocol !== 'smtp:' && url.protocol !== 'smtps:') {
    throw new NotificationConfigError(
      `${NotifyVariable.SmtpUrl} must be smtp:// or smtps://, got ${url.protocol}//`,
    );
  }
  const from = read(NotifyVariable.EmailFrom);
  if (from === undefined || !/@/.test(from)) {
    throw new NotificationConfigError(
      `${NotifyVariable.EmailFrom} must be the sender's address (keel@example.com) with ${NotifyVariable.SmtpUrl}`,
    );
  }
  const to = (read(NotifyVariable.EmailTo) ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bad = to.findIndex((entry) => !isEmailAddress(entry));
  if (bad >= 0) {
    throw new NotificationConfigError(
      `${NotifyVariable.EmailTo} entry ${bad + 1} is not an email address: ${JSON.stringify(to[bad])}`,
    );
  }
  return { smtpUrl: url, from, to };
}

/** An http(s) URL; the message names the variable, never the URL (a webhook's path is its secret). */
function httpUrl(name: string, text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new NotificationConfigError(`${name} is not a valid URL`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new NotificationConfigError(`${name} must be http:// or https://, got ${url.protocol}//`);
  }
  return url;
}

function webhookKey(secret: string): Buffer {
  try {
    return webhookSecretBytes(secret);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new NotificationConfigError(`${NotifyVariable.WebhookSecret} ${why}`);
  }
}
