import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { verifyWebhook, type WebhookCheck } from '../../src/activities/notifications/standard-webhooks';

/**
 * Real receivers for approval notifications, on loopback with ephemeral ports: an HTTP server
 * with a Standard Webhooks receiver that checks signatures and refuses replays (/hook), a
 * Slack-style receiver (/slack), one that always fails (/down, HTTP 500) and one that never
 * answers (/hang); and an SMTP server (smtp-server) that keeps every message it is given.
 */

export interface ReceivedRequest {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAtMs: number;
  /** The status the receiver answered; undefined while a /hang request is held. */
  status?: number;
  /** /hook only: the signature check. */
  check?: WebhookCheck;
}

export interface HttpReceiver {
  requests: ReceivedRequest[];
  url(path: string): string;
  /** Sends a request to the receiver as anyone could (a replay, a forgery). */
  post(path: string, headers: Record<string, string>, body: string): Promise<number>;
  close(): Promise<void>;
}

export async function startHttpReceiver(webhookKey: Buffer): Promise<HttpReceiver> {
  const requests: ReceivedRequest[] = [];
  const seenIds = new Set<string>();
  const held: ServerResponse[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const received: ReceivedRequest = {
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAtMs: Date.now(),
      };
      requests.push(received);
      const answer = (status: number) => {
        received.status = status;
        response.writeHead(status).end();
      };
      if (received.path === '/hook') {
        const header = (name: string) => {
          const value = request.headers[name];
          return Array.isArray(value) ? value[0] : value;
        };
        const check = verifyWebhook(
          webhookKey,
          {
            'webhook-id': header('webhook-id'),
            'webhook-timestamp': header('webhook-timestamp'),
            'webhook-signature': header('webhook-signature'),
          },
          received.body,
          { nowSeconds: Math.floor(Date.now() / 1000) },
        );
        received.check = check;
        if (!check.ok) return answer(401);
        if (seenIds.has(check.id)) return answer(409); // a replay of a message taken before
        seenIds.add(check.id);
        return answer(204);
      }
      if (received.path === '/slack') return answer(200);
      if (received.path === '/down') return answer(500);
      if (received.path === '/hang') return void held.push(response);
      return answer(404);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;
  return {
    requests,
    url: (path) => `${base}${path}`,
    async post(path, headers, body) {
      const response = await fetch(`${base}${path}`, { method: 'POST', headers, body });
      await response.body?.cancel();
      return response.status;
    },
    async close() {
      for (const response of held) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface ReceivedMail {
  from: string;
  to: string[];
  /** The message as sent, headers and body, with quoted-printable decoded. */
  text: string;
  receivedAtMs: number;
}

export interface SmtpReceiver {
  port: number;
  messages: ReceivedMail[];
  close(): Promise<void>;
}

/** A real SMTP server on loopback: no TLS, no login (the worker's URL is smtp://127.0.0.1:port). */
export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const messages: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        const from = session.envelope.mailFrom;
        messages.push({
          from: from === false ? '' : from.address,
          to: session.envelope.rcptTo.map((recipient) => recipient.address),
          text: decodeQuotedPrintable(Buffer.concat(chunks).toString('utf8')),
          receivedAtMs: Date.now(),
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.server.address() as AddressInfo;
  return {
    port,
    messages,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A port nothing listens on: taken from the system, then given back. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function decodeQuotedPrintable(text: string): string {
  return text
    .replace(/=\r?\n/g, '')
    .replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
}
