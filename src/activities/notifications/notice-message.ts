import { ANYONE } from '../../workflows/approvals/approval-authority';
import { NoticeKind, shortened, type ApprovalNotice } from '../../workflows/approvals/notifications';
import { decisionLinkUrl, signDecisionLink } from '../../client/decision-link';
import { workflowPageUrl } from '../../client/web-ui';

/**
 * What a notice says, for each channel: one plain text (email, and Slack's fallback), Slack's
 * blocks, and the webhook's JSON. Every message names the call, why it waits, what it changes,
 * until when, who may decide, and how: the inbox (a signed one-time link per approver, when the
 * worker knows the inbox), keel's CLI and the Temporal Web UI.
 */

export interface NoticeContext {
  namespace: string;
  webUiBase?: string | undefined;
  inbox?: { url: string; secret: Buffer } | undefined;
}

export interface DecisionLinks {
  /** The commands that decide the call from a terminal. */
  approve: string;
  deny: string;
  /** The goal's page in the Temporal Web UI. */
  webUi?: string;
  /** One signed one-time link into the inbox per approver, valid until the call's deadline. */
  inbox: { approver: string; url: string }[];
}

/** Approvers a message can name a link for: "*" (anyone) names nobody. */
export function namedApprovers(notice: ApprovalNotice): string[] {
  return notice.approvers.filter((approver) => approver !== ANYONE);
}

export function decisionLinks(
  notice: ApprovalNotice,
  context: NoticeContext,
  linkApprovers: readonly string[],
): DecisionLinks {
  const target = `${shellWord(notice.goalId)} ${shellWord(notice.callId)}`;
  const sign = notice.signed ? ' --approver YOUR_NAME --sign-key YOUR_KEY_FILE' : '';
  const inbox = context.inbox;
  return {
    approve: `keel approve ${target}${sign}`,
    deny: `keel deny ${target}${sign} --reason 'why'`,
    ...(context.webUiBase === undefined
      ? {}
      : { webUi: workflowPageUrl(context.webUiBase, context.namespace, notice.goalId) }),
    // A goal that requires signed decisions takes none from a link: the inbox would need the key.
    inbox:
      inbox === undefined || notice.signed
        ? []
        : linkApprovers.map((approver) => ({
            approver,
            url: decisionLinkUrl(
              inbox.url,
              signDecisionLink(
                {
                  goalId: notice.goalId,
                  callId: notice.callId,
                  approver,
                  expiresAt: Date.parse(notice.deadline),
                },
                inbox.secret,
              ),
            ),
          })),
  };
}

export function headline(notice: ApprovalNotice): string {
  const lead = notice.kind === NoticeKind.Reminder ? 'Reminder: approval still needed' : 'Approval needed';
  return shortened(`${lead}: ${notice.summary}`, 150);
}

/** The message as plain text: the email's body and what Slack shows where blocks are not shown. */
export function plainText(notice: ApprovalNotice, links: DecisionLinks): string {
  const reminder = notice.kind === NoticeKind.Reminder;
  return [
    reminder
      ? `A call of a keel goal still waits for a human; it is denied at ${notice.deadline} if nobody decides.`
      : 'A call of a keel goal waits for a human.',
    '',
    `goal: ${notice.goalId} (${notice.goal})`,
    `call: ${notice.callId}, ${notice.toolName} (${notice.reversibility})`,
    ...indented(notice.call),
    `why it waits: ${notice.whyItWaits}`,
    ...changesLines(notice),
    `waits until: ${notice.deadline} (then it is denied)`,
    `who may decide: ${whoMayDecide(notice)}`,
    '',
    'decide:',
    ...links.inbox.map((link) => `  in the inbox, as ${link.approver}: ${link.url}`),
    `  ${links.approve}`,
    `  ${links.deny}`,
    ...(links.webUi === undefined ? [] : [`  in the Temporal Web UI: ${links.webUi}`]),
  ].join('\n');
}

/** A Slack incoming-webhook message (https://docs.slack.dev/messaging/sending-messages-using-incoming-webhooks/). */
export function slackMessage(notice: ApprovalNotice, links: DecisionLinks): Record<string, unknown> {
  const decide = [
    ...links.inbox.map((link) => `• <${link.url}|Decide in the inbox as ${slackEscape(link.approver)}>`),
    ...(links.webUi === undefined ? [] : [`• <${links.webUi}|Open the goal in the Temporal Web UI>`]),
    `• \`${slackEscape(links.approve)}\``,
    `• \`${slackEscape(links.deny)}\``,
  ];
  const changes = changesLines(notice);
  return {
    // With blocks, `text` is the fallback shown in notifications.
    text: headline(notice),
    blocks: [
      { type: 'header', text: { type: 'plain_text', text: headline(notice) } },
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: [
            `*Goal* \`${slackEscape(notice.goalId)}\`: ${slackEscape(shortened(notice.goal, 300))}`,
            `*Call* \`${slackEscape(notice.callId)}\` · ${slackEscape(notice.toolName)} (${notice.reversibility})`,
            `\`\`\`${slackEscape(shortened(notice.call, 1500))}\`\`\``,
          ].join('\n'),
        },
      },
      {
        type: 'section',
        text: {
          type: 'mrkdwn',
          text: slackEscape(
            [
              `Why it waits: ${notice.whyItWaits}`,
              ...changes,
              `Waits until ${notice.deadline} (then it is denied)`,
              `Who may decide: ${whoMayDecide(notice)}`,
            ].join('\n'),
          ),
        },
      },
      { type: 'section', text: { type: 'mrkdwn', text: `*Decide*\n${decide.join('\n')}` } },
    ],
  };
}

/** The webhook's JSON, in the Standard Webhooks payload shape: type, timestamp, data. */
export function webhookPayload(notice: ApprovalNotice, links: DecisionLinks, sentAt: Date): string {
  return JSON.stringify({
    type: `approval.${notice.kind}`,
    timestamp: sentAt.toISOString(),
    data: { ...notice, links },
  });
}

function whoMayDecide(notice: ApprovalNotice): string {
  return notice.approvers.includes(ANYONE) ? 'anyone' : notice.approvers.join(', ');
}

function changesLines(notice: ApprovalNotice): string[] {
  const changes = notice.changes;
  if (changes === undefined) return ['what it changes: what the call above does'];
  const kinds = (['deleted', 'modified', 'created'] as const).flatMap((kind) =>
    changes[kind].map((path) => `  ${kind} ${path}`),
  );
  return [
    'what it changes (held until it is approved):',
    ...kinds,
    ...(changes.more > 0 ? [`  and ${changes.more} more`] : []),
  ];
}

function indented(text: string): string[] {
  return shortened(text, 2000)
    .split('\n')
    .map((line) => `    ${line}`);
}

/** Slack's three control characters (https://docs.slack.dev/messaging/formatting-message-text/). */
function slackEscape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/** A word a POSIX shell reads as it is. */
export function shellWord(text: string): string {
  return /^[A-Za-z0-9_.:@%+=,/-]+$/.test(text) ? text : `'${text.replace(/'/g, `'\\''`)}'`;
}
