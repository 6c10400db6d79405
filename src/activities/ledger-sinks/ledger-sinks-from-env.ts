import { LedgerSinkConfigError, type LedgerSink } from './ledger-sink';
import { STDOUT_SINK_NAME, createStdoutSink, type StdoutSinkOptions } from './stdout-sink';
import { createWebhookSink, parseWebhookUrl, type WebhookSinkOptions } from './webhook-sink';

export const LEDGER_SINKS_VARIABLE = 'KEEL_LEDGER_SINKS';

const WEBHOOK_PREFIX = 'webhook=';

export interface LedgerSinkDependencies {
  write?: StdoutSinkOptions['write'];
  fetch?: WebhookSinkOptions['fetch'];
}

/**
 * Reads KEEL_LEDGER_SINKS: a comma-separated list of `stdout` and `webhook=<http(s) URL>`
 * entries. Unset or blank means no sinks (the ledger is still kept and queryable). A bad entry
 * throws a LedgerSinkConfigError whose message is one line; it never repeats a URL, which may
 * carry a secret. A URL containing a comma cannot be listed (percent-encode it as %2C).
 */
export function ledgerSinksFromEnv(
  env: NodeJS.ProcessEnv,
  dependencies: LedgerSinkDependencies = {},
): LedgerSink[] {
  const entries = (env[LEDGER_SINKS_VARIABLE] ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0); // a trailing comma is harmless
  const seen = new Set<string>();
  return entries.map((entry, index) => {
    const position = `${LEDGER_SINKS_VARIABLE} entry ${index + 1}`;
    if (seen.has(entry)) throw new LedgerSinkConfigError(`${position} repeats an earlier sink`);
    seen.add(entry);
    if (entry === STDOUT_SINK_NAME) return createStdoutSink({ write: dependencies.write });
    if (entry.startsWith(WEBHOOK_PREFIX)) {
      const url = entry.slice(WEBHOOK_PREFIX.length).trim();
      try {
        parseWebhookUrl(url);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new LedgerSinkConfigError(`${position}: ${reason}`);
      }
      return createWebhookSink({ url, fetch: dependencies.fetch });
    }
    // Only the part before any "=" is echoed: a mistyped "webhok=<url>" must not print the URL.
    const kind = entry.split('=', 1)[0] ?? '';
    throw new LedgerSinkConfigError(
      `${position}: unknown sink ${JSON.stringify(kind)}; use stdout or webhook=<http(s) URL>, comma-separated`,
    );
  });
}
