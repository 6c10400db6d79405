import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { channelNameProblem, isEmailAddress } from '../../workflows/approvals/notifications';
import { NotificationConfigError } from './config-error';
import { webhookSecretBytes } from './standard-webhooks';

/**
 * The worker's named notification channels (KEEL_NOTIFY_CHANNELS_FILE), which goals name in
 * `notify.channels` (issue 46): a goal's history holds the name, never the URL or the key. One
 * JSON object, a channel per name, each of one kind:
 *
 *   {
 *     "team-a":   { "slack": "https://hooks.slack.com/services/…" },
 *     "oncall":   { "webhook": "https://hooks.example.com/keel", "secretEnv": "ONCALL_WEBHOOK_SECRET" },
 *     "ops-mail": { "email": ["ops@example.com", "lead@example.com"] }
 *   }
 *
 * A webhook's signing key comes from the environment variable `secretEnv` names, so the file holds
 * no key; an email channel sends over the worker's SMTP server (KEEL_NOTIFY_SMTP_URL, from
 * KEEL_NOTIFY_EMAIL_FROM). A Slack URL is a secret too: keep the file readable by the worker only.
 */

export const CHANNELS_FILE_VARIABLE = 'KEEL_NOTIFY_CHANNELS_FILE';

export type NamedChannel =
  { kind: 'slack'; url: URL } | { kind: 'webhook'; url: URL; key: Buffer } | { kind: 'email'; to: string[] };

/** The most addresses one email channel may list. */
export const MAX_CHANNEL_RECIPIENTS = 50;

const httpUrlText = z.string().superRefine((text, context) => {
  if (httpUrlOf(text) === undefined)
    // Never the URL itself in the message: a webhook's path is its secret.
    context.addIssue({ code: 'custom', message: 'must be an http:// or https:// URL' });
});

const channelSchema = z
  .object({
    slack: httpUrlText.optional(),
    webhook: httpUrlText.optional(),
    secretEnv: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'must be the name of an environment variable')
      .optional(),
    email: z
      .array(
        z.string().superRefine((address, context) => {
          if (!isEmailAddress(address))
            context.addIssue({
              code: 'custom',
              message: `${JSON.stringify(address)} is not a plain email address (name@domain)`,
            });
        }),
      )
      .min(1, 'must list at least one address')
      .max(MAX_CHANNEL_RECIPIENTS)
      .optional(),
  })
  .strict()
  .superRefine((channel, context) => {
    const kinds = (['slack', 'webhook', 'email'] as const).filter((kind) => channel[kind] !== undefined);
    if (kinds.length !== 1) {
      context.addIssue({
        code: 'custom',
        message: `a channel is one of slack, webhook or email, got ${kinds.length === 0 ? 'none' : kinds.join(' and ')}`,
      });
    } else if (channel.webhook !== undefined && channel.secretEnv === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['secretEnv'],
        message: 'a webhook needs secretEnv, the environment variable holding its signing secret',
      });
    } else if (channel.webhook === undefined && channel.secretEnv !== undefined) {
      context.addIssue({ code: 'custom', path: ['secretEnv'], message: 'only a webhook has a secretEnv' });
    }
  });

/** Reads and checks the channels file; a problem is one line naming the file and the field. */
export function namedChannelsFromFile(
  file: string,
  options: { env: NodeJS.ProcessEnv; smtp: boolean; read?: (file: string) => string },
): Map<string, NamedChannel> {
  let text: string;
  try {
    text = (options.read ?? ((path) => readFileSync(path, 'utf8')))(file);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? 'unreadable';
    throw new NotificationConfigError(`${CHANNELS_FILE_VARIABLE} ${file} cannot be read (${code})`);
  }
  return parseNamedChannels(text, { ...options, source: `${CHANNELS_FILE_VARIABLE} ${file}` });
}

/** The channels a file's text defines; `source` begins every error's line. */
export function parseNamedChannels(
  text: string,
  options: { source: string; env: NodeJS.ProcessEnv; smtp: boolean },
): Map<string, NamedChannel> {
  const refuse = (field: string | undefined, message: string) =>
    new NotificationConfigError(`${options.source}: ${field === undefined ? '' : `${field}: `}${message}`);
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    // Only where: V8's message quotes the text around the mistake, which may be a secret URL.
    const where = /position \d+(?: \(line \d+ column \d+\))?/.exec(String(error))?.[0];
    throw refuse(undefined, `is not JSON${where === undefined ? '' : ` (at ${where})`}`);
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw refuse(
      undefined,
      'must be a JSON object of channels by name, e.g. {"team-a": {"slack": "https://…"}}',
    );
  }
  const channels = new Map<string, NamedChannel>();
  for (const [name, value] of Object.entries(raw)) {
    const problem = channelNameProblem(name);
    if (problem !== undefined) throw refuse(undefined, problem);
    if (typeof value === 'object' && value !== null && 'secret' in value) {
      throw refuse(`${name}.secret`, 'keys stay out of the file: set secretEnv to the variable holding it');
    }
    const parsed = channelSchema.safeParse(value);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const field = [name, ...(issue?.path ?? []).map(String)].join('.');
      throw refuse(field, issue?.message ?? 'is not a channel');
    }
    channels.set(name, resolved(name, parsed.data, options, refuse));
  }
  return channels;
}

function resolved(
  name: string,
  channel: z.output<typeof channelSchema>,
  options: { env: NodeJS.ProcessEnv; smtp: boolean },
  refuse: (field: string, message: string) => NotificationConfigError,
): NamedChannel {
  if (channel.slack !== undefined) return { kind: 'slack', url: new URL(channel.slack) };
  if (channel.webhook !== undefined && channel.secretEnv !== undefined) {
    const variable = channel.secretEnv;
    const secret = options.env[variable]?.trim();
    if (secret === undefined || secret === '') throw refuse(`${name}.secretEnv`, `${variable} is not set`);
    try {
      return { kind: 'webhook', url: new URL(channel.webhook), key: webhookSecretBytes(secret) };
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      throw refuse(`${name}.secretEnv`, `${variable} ${why}`);
    }
  }
  if (!options.smtp) {
    throw refuse(
      `${name}.email`,
      'an email channel sends over the worker’s SMTP server: set KEEL_NOTIFY_SMTP_URL and KEEL_NOTIFY_EMAIL_FROM',
    );
  }
  return { kind: 'email', to: [...new Set(channel.email)] };
}

function httpUrlOf(text: string): URL | undefined {
  try {
    const url = new URL(text);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}
