import { z } from 'zod';
import { callIntentSchema, sameIntent, type CallIntent } from './call-intent';

/**
 * Denials count (issue 22): a model that asks again for what a human denied — the same call, the
 * same intent in other words, or the same effects through another tool (call-intent.ts,
 * denied-effects.ts; issue 44) — is told plainly after the first denial, and
 * stopped (or the plan backtracks) once one intent has been denied `stopAfterDenials` times, so a
 * human is never asked fifty times. Denials by timeout and by a remembered "do not ask again" count
 * like a human's.
 */
export interface DenialSettings {
  enabled: boolean;
  /** Denials of one intent that stop the goal (after the warning at the first). */
  stopAfterDenials: number;
}

export const DEFAULT_DENIAL_SETTINGS: DenialSettings = { enabled: true, stopAfterDenials: 3 };

export const MAX_REMEMBERED_INTENTS = 20;

export const deniedIntentSchema = z.lazy(() =>
  z.object({
    intent: callIntentSchema,
    denials: z.number().int().positive(),
  }),
);
export type DeniedIntent = z.infer<typeof deniedIntentSchema>;

export type DenialVerdict =
  { kind: 'none'; denials: number } | { kind: 'warn' | 'stop'; denials: number; intent: CallIntent };

/**
 * One more denial of `intent`: updates `denied` (the intents denied so far) and says what to do.
 * `warnedAndRead`: the model has read the warning about this intent (it had a turn since).
 */
export function observeDenial(
  denied: DeniedIntent[],
  intent: CallIntent,
  settings: DenialSettings,
  warnedAndRead: (intent: CallIntent) => boolean,
): DenialVerdict {
  let entry = denied.find((known) => sameIntent(known.intent, intent));
  if (entry) entry.denials += 1;
  else {
    entry = { intent, denials: 1 };
    denied.push(entry);
    if (denied.length > MAX_REMEMBERED_INTENTS) denied.shift();
  }
  if (!settings.enabled) return { kind: 'none', denials: entry.denials };
  if (entry.denials === 1) return { kind: 'warn', denials: 1, intent: entry.intent };
  if (entry.denials >= settings.stopAfterDenials && warnedAndRead(entry.intent))
    return { kind: 'stop', denials: entry.denials, intent: entry.intent };
  return { kind: 'none', denials: entry.denials };
}

export function denialPrompt(options: {
  summary: string;
  intentText: string;
  stopAfterDenials: number;
  consequence: string;
}): string {
  return [
    `[Denied] This call was not approved, and nothing of it reached the workspace: ${options.summary}`,
    `Do not ask for it again, and do not ask for the same thing another way (${options.intentText}): what was refused is what the call would do, so any other tool, a script or another command that would delete or overwrite the same paths waits for a human too and counts as asking again.`,
    'Reach the goal without it, or give your final answer and say plainly what is blocked and what a human would need to do.',
    `If this request is denied ${options.stopAfterDenials} times, keel ${options.consequence}.`,
  ].join('\n');
}
