import { createHash } from 'node:crypto';
import { LedgerSinkConfigError, type LedgerSink } from './ledger-sink';

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 5_000;

export interface WebhookSinkOptions {
  /** An http:// or https:// URL; it receives POST {workflowId, events} as JSON. */
  url: string;
  /** How long one delivery may take, answer included, before it counts as failed. */
  timeoutMs?: number;
  /** The fetch implementation; the global one by default. */
  fetch?: typeof fetch;
}

/**
 * Posts each batch to a URL. Anything but a 2xx answer, a network error or no answer within
 * `timeoutMs` rejects, so the activity fails and Temporal retries it later; the workflow never
 * waits for it.
 */
export function createWebhookSink(options: WebhookSinkOptions): LedgerSink {
  const url = parseWebhookUrl(options.url);
  const timeoutMs = options.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  if (!Number.isFinite(timeoutMs) || timeoutMs <= 0) {
    throw new LedgerSinkConfigError(`webhook timeoutMs must be a positive number, got ${timeoutMs}`);
  }
  const send = options.fetch ?? fetch;
  const name = webhookSinkName(url);

  return {
    name,
    async publish({ workflowId, events }) {
      let response: Response;
      try {
        response = await send(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ workflowId, events }),
          signal: AbortSignal.timeout(timeoutMs),
        });
      } catch (error) {
        if (isTimeout(error)) throw new Error(`${name}: no answer within ${timeoutMs} ms`, { cause: error });
        throw new Error(`${name}: ${describeNetworkError(error)}`, { cause: error });
      }
      // The answer's body is not needed; discarding it frees the connection for the next batch.
      await response.body?.cancel().catch(() => undefined);
      if (!response.ok) {
        throw new Error(`${name}: answered HTTP ${response.status}${suffix(response.statusText)}`);
      }
    },
  };
}

/** Parses and checks a webhook URL; the message never repeats the URL, which may hold a secret. */
export function parseWebhookUrl(text: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new LedgerSinkConfigError('webhook URL is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new LedgerSinkConfigError(`webhook URL must be http:// or https://, got ${url.protocol}//`);
  }
  return url;
}

/**
 * Webhook URLs often carry a secret in the path or query (Slack, Discord), and sink names end up
 * in activity failures, which Temporal keeps in history. So the name shows only the origin, plus
 * a short digest of the whole URL that tells two webhooks on one host apart.
 */
export function webhookSinkName(url: URL): string {
  const digest = createHash('sha256').update(url.href, 'utf8').digest('hex').slice(0, 8);
  return `webhook ${url.origin} [${digest}]`;
}

function isTimeout(error: unknown): boolean {
  return error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError');
}

/** undici reports "fetch failed" and puts the reason (ECONNREFUSED, a TLS error) in `cause`. */
function describeNetworkError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}

function suffix(statusText: string): string {
  return statusText ? ` ${statusText}` : '';
}
