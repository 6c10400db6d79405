import { z } from 'zod';

/**
 * Telling a goal's approvers that a call waits for them (issue 46): which channels, when the
 * reminder is due, and what a notice says. Pure, shared by the workflow (which decides when to
 * tell) and the worker's notification activity (which sends). Nothing here is secret: it is
 * recorded in history (the worker's URLs and keys stay on the worker; a goal names channels).
 */

/** The worker's own channels (KEEL_NOTIFY_*), one of each kind; their names are reserved. */
export const NotificationChannel = { Webhook: 'webhook', Slack: 'slack', Email: 'email' } as const;
export type NotificationChannel = (typeof NotificationChannel)[keyof typeof NotificationChannel];
const channels = Object.values(NotificationChannel) as [NotificationChannel, ...NotificationChannel[]];

/**
 * A channel's name: one of the worker's own (webhook, slack, email) or a name its channels file
 * (KEEL_NOTIFY_CHANNELS_FILE) defines, which a goal names in `notify.channels`.
 */
export type ChannelName = string;

/** Letters, digits, `.`, `_` and `-`, starting with a letter or digit: it goes in ledger lines and flags. */
export const CHANNEL_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Why `name` cannot name a channel of a channels file, or undefined when it can. */
export function channelNameProblem(name: string): string | undefined {
  if ((channels as readonly string[]).includes(name))
    return `"${name}" is the worker's own channel (KEEL_NOTIFY_*), not a name a channels file defines`;
  if (!CHANNEL_NAME_PATTERN.test(name))
    return `"${name}" is not a channel name: letters, digits, '.', '_' and '-', at most 64`;
  return undefined;
}

/** A plain address: name@domain, nothing around it (no display name, no list). */
export function isEmailAddress(text: string): boolean {
  return /^[^\s@<>",;]+@[^\s@<>",;]+$/.test(text);
}

/** The most channels and extra recipients one goal may name. */
export const MAX_GOAL_CHANNELS = 10;
export const MAX_GOAL_EMAIL_RECIPIENTS = 20;

/** The first notice when a call starts waiting, and one reminder before its deadline. */
export const NoticeKind = { Waiting: 'waiting', Reminder: 'reminder' } as const;
export type NoticeKind = (typeof NoticeKind)[keyof typeof NoticeKind];
const kinds = Object.values(NoticeKind) as [NoticeKind, ...NoticeKind[]];

/** Stable ApplicationFailure types of the notification activity. */
export const NotificationFailureType = {
  /** The receiver refused the notice (a 4xx other than 408 and 429, an SMTP 5xx): retrying will not help. */
  Refused: 'NotificationRefused',
  /** The worker has no settings for the channel the goal asked for (a worker configured otherwise). */
  NotConfigured: 'NotificationChannelNotConfigured',
} as const;

/**
 * When the reminder is due: `beforeMs` before the deadline, or when `share` of the wait window
 * is left (0.2: at 80% of the wait). Absent: no reminder.
 */
export const reminderLeadSchema = z.union([
  z.object({ beforeMs: z.number().int().positive() }).strict(),
  z.object({ share: z.number().gt(0).lt(1) }).strict(),
]);
export type ReminderLead = z.infer<typeof reminderLeadSchema>;
export const DEFAULT_REMINDER_LEAD: ReminderLead = { share: 0.2 };

/**
 * What a worker tells its goals at their start: its own channels and the reminder. No channels
 * with a reminder: the worker has only named channels (a channels file), which goals name.
 */
export const notificationDefaultsSchema = z.lazy(() =>
  z.object({
    channels: z.array(z.enum(channels)),
    reminder: reminderLeadSchema.optional(),
  }),
);
export type NotificationDefaults = z.infer<typeof notificationDefaultsSchema>;

/**
 * A goal's own notification settings (`keel run --notify`, goal input `notify`): channels the
 * worker's channels file defines, by name, and extra email recipients, both ADDED to the worker's
 * own channels (a goal cannot take a notice away from the team's feed), and its own reminder.
 * Names and addresses only: URLs and keys stay on the worker, as history keeps this.
 */
export const goalNotifySchema = z.lazy(() =>
  z
    .object({
      channels: z
        .array(
          z.string().superRefine((name, context) => {
            const problem = channelNameProblem(name);
            if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
          }),
        )
        .max(MAX_GOAL_CHANNELS)
        .optional(),
      emailTo: z
        .array(z.string().refine(isEmailAddress, { message: 'not a plain email address (name@domain)' }))
        .max(MAX_GOAL_EMAIL_RECIPIENTS)
        .optional(),
      /** When the reminder is due, instead of the worker's KEEL_NOTIFY_REMINDER_BEFORE; 'off': none. */
      reminder: z.union([reminderLeadSchema, z.literal('off')]).optional(),
    })
    .strict(),
);
export type GoalNotify = z.infer<typeof goalNotifySchema>;

/**
 * The channels a goal's notices go to: the worker's own, then those the goal names, and the
 * worker's email when the goal names recipients (it sends them over the worker's SMTP server).
 * A goal that names nothing gets exactly the worker's, as every goal from before did.
 */
export function goalChannels(
  defaults: NotificationDefaults | undefined,
  notify: GoalNotify | undefined,
): ChannelName[] {
  const own: ChannelName[] = defaults?.channels ?? [];
  const email = (notify?.emailTo ?? []).length > 0 ? [NotificationChannel.Email] : [];
  return [...new Set([...own, ...email, ...(notify?.channels ?? [])])];
}

/** When the goal's reminder is due: its own lead, else the worker's; 20% for a worker that said none. */
export function goalReminder(
  defaults: NotificationDefaults | undefined,
  notify: GoalNotify | undefined,
): ReminderLead | undefined {
  if (notify?.reminder === 'off') return undefined;
  if (notify?.reminder !== undefined) return notify.reminder;
  return defaults === undefined ? DEFAULT_REMINDER_LEAD : defaults.reminder;
}

/**
 * The deliveries of one ask of a call that ended, sent or failed, kept on its approval record: a
 * new run after continue-as-new repeats none of them, and sends again only those cut off.
 */
export const noticesSentSchema = z.lazy(() =>
  z.array(z.object({ kind: z.enum(kinds), channel: z.string() })),
);

/**
 * The workflow-clock time the reminder is due, or undefined when there is none: no lead, or a
 * lead as long as the wait itself (a reminder at the first notice tells nobody anything new).
 */
export function reminderDueMs(
  wait: { requestedAtMs: number; deadlineMs: number },
  lead: ReminderLead | undefined,
): number | undefined {
  if (lead === undefined) return undefined;
  const window = wait.deadlineMs - wait.requestedAtMs;
  const before = 'beforeMs' in lead ? lead.beforeMs : Math.round(window * lead.share);
  const due = wait.deadlineMs - before;
  return due > wait.requestedAtMs ? due : undefined;
}

/** Paths of each kind a notice lists; the rest are counted. */
export const NOTICE_PATHS_PER_KIND = 20;

/** What the notification activity is given: everything a message says about the call. */
export interface ApprovalNotice {
  kind: NoticeKind;
  goalId: string;
  /** The goal's text, shortened. */
  goal: string;
  callId: string;
  toolName: string;
  /** One line: the tool and its input. */
  summary: string;
  /** The call's input as a person reads it (the command, or the JSON). */
  call: string;
  reversibility: 'mutating' | 'irreversible';
  whyItWaits: string;
  /** What the call changes, when the worker held its changes (an escalation): paths by kind. */
  changes?: NoticeChanges;
  requestedAt: string;
  deadline: string;
  /** Who may decide this call's tier: names, or "*" for anyone. */
  approvers: string[];
  /** The goal requires signed decisions (keel approve --sign-key). */
  signed: boolean;
}

export interface NoticeChanges {
  deleted: string[];
  modified: string[];
  created: string[];
  /** Paths of any kind not listed here. */
  more: number;
}

/** The held change list, shortened to what a message can show. */
export function noticeChanges(changes: {
  deleted: readonly string[];
  modified: readonly string[];
  created: readonly string[];
  omitted?: { deleted?: number; modified?: number; created?: number } | undefined;
}): NoticeChanges {
  const first = (paths: readonly string[]) => paths.slice(0, NOTICE_PATHS_PER_KIND);
  const listed = (paths: readonly string[]) => Math.min(paths.length, NOTICE_PATHS_PER_KIND);
  const total =
    changes.deleted.length +
    changes.modified.length +
    changes.created.length +
    (changes.omitted?.deleted ?? 0) +
    (changes.omitted?.modified ?? 0) +
    (changes.omitted?.created ?? 0);
  return {
    deleted: first(changes.deleted),
    modified: first(changes.modified),
    created: first(changes.created),
    more: total - listed(changes.deleted) - listed(changes.modified) - listed(changes.created),
  };
}

/** A text cut to `max` characters, with an ellipsis when cut. */
export function shortened(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}
