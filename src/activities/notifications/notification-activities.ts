import { randomUUID } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/common';
import { createTransport, type SendMailOptions, type Transporter } from 'nodemailer';
import { z } from 'zod';
import { ANYONE } from '../../workflows/approvals/approval-authority';
import {
  NotificationChannel,
  NotificationFailureType,
  type ApprovalNotice,
  type ChannelName,
} from '../../workflows/approvals/notifications';
import { activityContextOrUndefined } from '../activity-context';
import { webhookSinkName } from '../ledger-sinks/webhook-sink';
import {
  decisionLinks,
  headline,
  namedApprovers,
  plainText,
  slackMessage,
  webhookPayload,
  type NoticeContext,
} from './notice-message';
import { isEmailAddress, NotifyVariable, type NotifierSettings } from './notifier-settings';
import type { NamedChannel } from './channels-file';
import { signedWebhookHeaders } from './standard-webhooks';

/** How long one HTTP delivery may take, answer included. */
export const NOTIFY_HTTP_TIMEOUT_MS = 10_000;

export interface DeliverNoticeInput {
  /** One of the worker's own channels (webhook, slack, email) or a name its channels file defines. */
  channel: ChannelName;
  notice: ApprovalNotice;
  /** The goal's own recipients (`notify.emailTo`), with the worker's email channel only. */
  emailTo?: string[];
}

export interface DeliverNoticeResult {
  channel: ChannelName;
  /** A named channel's kind; absent for the worker's own, whose name is their kind. */
  via?: NamedChannel['kind'];
  /** Where it went: a webhook's origin and digest (its path may be a secret), or the addresses. */
  to: string;
  /** The worker's clock when the channel took it. */
  sentAt: string;
  attempt: number;
}

/** The slice of the activity context used: the namespace, the attempt, and what a retry may skip. */
export interface NoticeActivityContext {
  readonly info: {
    readonly workflowNamespace: string;
    readonly attempt: number;
    readonly heartbeatDetails: unknown;
  };
  heartbeat(details?: unknown): void;
}

export interface NotificationActivityDependencies {
  settings?: NotifierSettings | undefined;
  fetch?: typeof fetch;
  now?: () => Date;
  context?: () => NoticeActivityContext | undefined;
}

const sentToSchema = z.object({ sentTo: z.array(z.string()) });

/**
 * deliverApprovalNotice: one notice to one channel. Trouble that may pass (no answer, a 5xx, a
 * 429, an SMTP 4xx) fails the attempt and Temporal retries it, a bounded number of times (the
 * workflow's proxy); a refusal (another 4xx, an SMTP 5xx) is not retried. The goal never waits
 * for it: the ledger records how it ended.
 */
export function createNotificationActivities(dependencies: NotificationActivityDependencies) {
  const settings = dependencies.settings;
  const send = dependencies.fetch ?? fetch;
  const now = dependencies.now ?? (() => new Date());
  const currentContext = dependencies.context ?? activityContextOrUndefined;
  let mailer: Transporter | undefined;

  async function deliverApprovalNotice(input: DeliverNoticeInput): Promise<DeliverNoticeResult> {
    const context = currentContext();
    const noticeContext: NoticeContext = {
      namespace: context?.info.workflowNamespace ?? 'default',
      webUiBase: settings?.webUiBase,
      inbox: settings?.inbox,
    };
    const { notice, channel } = input;
    const done = (to: string, via?: NamedChannel['kind']): DeliverNoticeResult => ({
      channel,
      ...(via === undefined ? {} : { via }),
      to,
      sentAt: now().toISOString(),
      attempt: context?.info.attempt ?? 1,
    });
    const mail = (to: readonly string[]) => {
      const email = settings?.email;
      if (email === undefined) return undefined;
      mailer ??= createTransport({
        url: email.smtpUrl.href,
        connectionTimeout: NOTIFY_HTTP_TIMEOUT_MS,
        greetingTimeout: NOTIFY_HTTP_TIMEOUT_MS,
        socketTimeout: 2 * NOTIFY_HTTP_TIMEOUT_MS,
      });
      return sendEmails({ transport: mailer, from: email.from, to, notice, noticeContext, context });
    };
    if (channel === NotificationChannel.Webhook && settings?.webhook) {
      await sendWebhook(send, settings.webhook, notice, noticeContext, now());
      return done(webhookSinkName(settings.webhook.url));
    }
    if (channel === NotificationChannel.Slack && settings?.slack) {
      await sendSlack(send, settings.slack.url, notice, noticeContext);
      return done(webhookSinkName(settings.slack.url));
    }
    if (channel === NotificationChannel.Email && settings?.email) {
      const recipients = emailRecipients(notice, [...settings.email.to, ...(input.emailTo ?? [])]);
      if (recipients.length === 0) {
        throw ApplicationFailure.nonRetryable(
          'no email recipient: name approvers by address or set KEEL_NOTIFY_EMAIL_TO',
          NotificationFailureType.NotConfigured,
        );
      }
      await mail(recipients);
      return done(`email to ${recipients.join(', ')}`);
    }
    if (isOwnChannel(channel)) {
      const why =
        channel === NotificationChannel.Email && (input.emailTo ?? []).length > 0
          ? `this worker has no SMTP server for the goal's email recipients (${NotifyVariable.SmtpUrl})`
          : `this worker has no ${channel} notification channel configured`;
      throw ApplicationFailure.nonRetryable(why, NotificationFailureType.NotConfigured);
    }
    const named = settings?.named?.get(channel);
    if (named === undefined) {
      throw ApplicationFailure.nonRetryable(
        unknownChannel(channel, settings),
        NotificationFailureType.NotConfigured,
      );
    }
    if (named.kind === 'webhook') {
      await sendWebhook(send, named, notice, noticeContext, now());
      return done(webhookSinkName(named.url), named.kind);
    }
    if (named.kind === 'slack') {
      await sendSlack(send, named.url, notice, noticeContext);
      return done(webhookSinkName(named.url), named.kind);
    }
    // Checked at the worker's start: an email channel needs the worker's SMTP server.
    await mail(named.to);
    return done(`email to ${named.to.join(', ')}`, named.kind);
  }

  // A plain function, not a method: the worker registers activities detached from this object.
  return { deliverApprovalNotice };
}

export type NotificationActivities = ReturnType<typeof createNotificationActivities>;

/** Approvers of the call's tier named by address, then the worker's and the goal's recipients, once each. */
export function emailRecipients(notice: ApprovalNotice, configured: readonly string[]): string[] {
  return [...new Set([...notice.approvers.filter(isEmailAddress), ...configured])];
}

function isOwnChannel(channel: ChannelName): channel is NotificationChannel {
  return (Object.values(NotificationChannel) as string[]).includes(channel);
}

/** Why a goal's channel is not here: the names this worker has (names are not secret). */
function unknownChannel(channel: ChannelName, settings: NotifierSettings | undefined): string {
  const names = [...(settings?.named?.keys() ?? [])];
  const known =
    names.length === 0
      ? `it has no named channels (${NotifyVariable.ChannelsFile})`
      : `its channels file names ${names.slice(0, 10).join(', ')}${names.length > 10 ? ', …' : ''}`;
  return `this worker has no notification channel named "${channel}": ${known}`;
}

async function sendWebhook(
  send: typeof fetch,
  webhook: { url: URL; key: Buffer },
  notice: ApprovalNotice,
  noticeContext: NoticeContext,
  sentAt: Date,
): Promise<void> {
  const body = webhookPayload(notice, decisionLinks(notice, noticeContext, namedApprovers(notice)), sentAt);
  // One id for every attempt of this notice, so a receiver takes it once.
  const id = `msg_${notice.goalId}.${notice.callId}.${notice.kind}.${Date.parse(notice.requestedAt)}`;
  const headers = signedWebhookHeaders(webhook.key, {
    id,
    timestampSeconds: Math.floor(sentAt.getTime() / 1000),
    body,
  });
  await postJson(send, webhook.url, body, { ...headers });
}

async function sendSlack(
  send: typeof fetch,
  url: URL,
  notice: ApprovalNotice,
  noticeContext: NoticeContext,
): Promise<void> {
  const links = decisionLinks(notice, noticeContext, namedApprovers(notice));
  await postJson(send, url, JSON.stringify(slackMessage(notice, links)), {});
}

/** One email per recipient; a retry skips those an earlier attempt reached (the heartbeat's details). */
async function sendEmails(options: {
  transport: Transporter;
  from: string;
  to: readonly string[];
  notice: ApprovalNotice;
  noticeContext: NoticeContext;
  context:
    { readonly info: { readonly heartbeatDetails: unknown }; heartbeat(details?: unknown): void } | undefined;
}): Promise<void> {
  const { transport, notice, context } = options;
  const earlier = sentToSchema.safeParse(context?.info.heartbeatDetails);
  const sentTo = new Set(earlier.success ? earlier.data.sentTo : []);
  for (const recipient of options.to.filter((address) => !sentTo.has(address))) {
    // Each recipient gets only their own link: it decides as them.
    const mayDecide = notice.approvers.includes(ANYONE) || notice.approvers.includes(recipient);
    const links = decisionLinks(notice, options.noticeContext, mayDecide ? [recipient] : []);
    await sendMail(transport, {
      from: options.from,
      to: recipient,
      subject: `keel: ${headline(notice)}`,
      text: plainText(notice, links),
      messageId: `<${randomUUID()}@keel>`,
    });
    sentTo.add(recipient);
    context?.heartbeat({ sentTo: [...sentTo] });
  }
}

async function postJson(
  send: typeof fetch,
  url: URL,
  body: string,
  headers: Record<string, string>,
): Promise<void> {
  const name = webhookSinkName(url);
  let response: Response;
  try {
    response = await send(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body,
      signal: AbortSignal.timeout(NOTIFY_HTTP_TIMEOUT_MS),
    });
  } catch (error) {
    const cause = error instanceof Error && error.cause instanceof Error ? ` (${error.cause.message})` : '';
    throw new Error(`${name}: ${error instanceof Error ? error.message : String(error)}${cause}`, {
      cause: error,
    });
  }
  await response.body?.cancel().catch(() => undefined);
  if (response.ok) return;
  const message = `${name}: answered HTTP ${response.status}`;
  // Too many requests and a timeout may pass; another 4xx says the message itself is refused.
  if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429) {
    throw ApplicationFailure.nonRetryable(message, NotificationFailureType.Refused);
  }
  throw new Error(message);
}

async function sendMail(transport: Transporter, mail: SendMailOptions): Promise<void> {
  try {
    await transport.sendMail(mail);
  } catch (error) {
    const code = (error as { responseCode?: unknown }).responseCode;
    const message =
      `SMTP: ${error instanceof Error ? error.message : String(error)}`.split('\n')[0] ?? 'SMTP';
    // 5xx: the server refuses this message for good; 4xx and no answer may pass.
    if (typeof code === 'number' && code >= 500) {
      throw ApplicationFailure.nonRetryable(message, NotificationFailureType.Refused);
    }
    throw new Error(message, { cause: error });
  }
}
