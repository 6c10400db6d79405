/**
 * `keel run --notify NAME --notify-email ADDRESS --notify-reminder LEAD`: who else hears that one of
 * the goal's calls waits for a human (goal input `notify`, approvals/notifications.ts). A name is
 * looked up by the worker that sends the notice, in its KEEL_NOTIFY_CHANNELS_FILE, which `keel run`
 * cannot see: a name no worker defines is recorded as notification.failed in the goal's ledger.
 */
import { InvalidArgumentError, Option } from 'commander';
import { parseReminderLead } from '../activities/notifications/notifier-settings';
import {
  channelNameProblem,
  isEmailAddress,
  type GoalNotify,
  type ReminderLead,
} from '../workflows/approvals/notifications';
import type { GoalInput } from '../workflows/goal/lifecycle/input';

export interface NotifyFlags {
  /** --notify (repeatable, or comma-separated): channel names. */
  notify: string[];
  /** --notify-email (repeatable, or comma-separated): addresses. */
  notifyEmail: string[];
  /** --notify-reminder, parsed: a lead, or 'off'. */
  notifyReminder?: ReminderLead | 'off';
}

/** `keel run`'s three flags, made afresh for each program (commander keeps state on them). */
export function notifyOption(): Option {
  return new Option(
    '--notify <channel>',
    "also tell this named channel of the worker's KEEL_NOTIFY_CHANNELS_FILE when a call waits for a human (repeatable; added to the worker's own channels)",
  )
    .argParser(notifyChannels)
    .default([], 'none');
}

export function notifyEmailOption(): Option {
  return new Option(
    '--notify-email <address>',
    "also email this address when a call waits, over the worker's SMTP server (repeatable)",
  )
    .argParser(notifyEmails)
    .default([], 'none');
}

export function notifyReminderOption(): Option {
  return new Option(
    '--notify-reminder <lead>',
    "when to remind before the deadline: a share of the wait (20%), a duration (30m) or off (default: the worker's)",
  ).argParser(notifyReminder);
}

/** The flags as goal input `notify`; nothing when none was given. */
export function notifyInput(flags: NotifyFlags): Pick<GoalInput, 'notify'> {
  const notify: GoalNotify = {
    ...(flags.notify.length > 0 ? { channels: flags.notify } : {}),
    ...(flags.notifyEmail.length > 0 ? { emailTo: flags.notifyEmail } : {}),
    ...(flags.notifyReminder === undefined ? {} : { reminder: flags.notifyReminder }),
  };
  return Object.keys(notify).length > 0 ? { notify } : {};
}

export function notifyChannels(value: string, earlier: string[] = []): string[] {
  const names = listed(value);
  for (const name of names) {
    const problem = channelNameProblem(name);
    if (problem !== undefined) throw new InvalidArgumentError(problem);
  }
  return [...new Set([...earlier, ...names])];
}

export function notifyEmails(value: string, earlier: string[] = []): string[] {
  const addresses = listed(value);
  const bad = addresses.find((address) => !isEmailAddress(address));
  if (bad !== undefined)
    throw new InvalidArgumentError(`${JSON.stringify(bad)} is not a plain email address (name@domain)`);
  return [...new Set([...earlier, ...addresses])];
}

export function notifyReminder(value: string): ReminderLead | 'off' {
  if (value.trim() === '') throw new InvalidArgumentError('must be a share (20%), a duration (30m) or off');
  try {
    return parseReminderLead(value) ?? 'off';
  } catch {
    throw new InvalidArgumentError(
      'must be a share of the wait (20%), a duration before the deadline (30m) or off',
    );
  }
}

function listed(value: string): string[] {
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  if (entries.length === 0) throw new InvalidArgumentError('name at least one');
  return entries;
}
