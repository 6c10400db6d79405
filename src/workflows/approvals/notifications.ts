import { z } from 'zod';

/**
 * Telling a goal's approvers that a call waits for them (issue 46): which channels, when the
 * reminder is due, and what a notice says. Pure, shared by the workflow (which decides when to
 * tell) and the worker's notification activity (which sends). Nothing here is secret: it is
 * recorded in history (the worker's URLs and keys stay on the worker).
 */

export const NotificationChannel = { Webhook: 'webhook', Slack: 'slack', Email: 'email' } as const;
export type NotificationChannel = (typeof NotificationChannel)[keyof typeof NotificationChannel];
const channels = Object.values(NotificationChannel) as [NotificationChannel, ...NotificationChannel[]];

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

/** What a worker tells its goals at their start: the channels it sends to and the reminder. */
export const notificationDefaultsSchema = z.lazy(() =>
  z.object({
    channels: z.array(z.enum(channels)).min(1),
    reminder: reminderLeadSchema.optional(),
  }),
);
export type NotificationDefaults = z.infer<typeof notificationDefaultsSchema>;

/**
 * The deliveries of one ask of a call that ended, sent or failed, kept on its approval record: a
 * new run after continue-as-new repeats none of them, and sends again only those cut off.
 */
export const noticesSentSchema = z.lazy(() =>
  z.array(z.object({ kind: z.enum(kinds), channel: z.enum(channels) })),
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
