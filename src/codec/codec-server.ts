import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { PayloadCodec } from '@temporalio/common';
import { payloadFromJson, payloadsBodySchema, payloadToJson } from './payload-json';

export const DEFAULT_CODEC_SERVER_HOST = '127.0.0.1';
export const DEFAULT_UI_ORIGIN = 'http://localhost:8233';
const MAX_BODY_BYTES = 16 * 1024 * 1024; // well above Temporal's 2 MB payload limit, times a batch
// What the Web UI sends: JSON, the namespace, and the user's token when "pass access token" is on.
const ALLOWED_HEADERS = 'content-type, x-namespace, authorization';

export interface CodecServerOptions {
  codec: PayloadCodec;
  /** 0 (or omitted) picks a free port. */
  port?: number;
  host?: string;
  /** Browser origins allowed to call (the Web UI's own address, exactly as the browser shows it). */
  uiOrigins?: readonly string[];
  /** One line per failed request; silent when omitted. */
  log?: (line: string) => void;
}

export interface CodecServer {
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The Web UI's remote codec endpoint: POST /decode and /encode with `{payloads: [...]}`. The
 * browser calls it directly, so the decoded data goes from here to the person's screen and never
 * back to the Temporal server. The same keys serve every namespace, so X-Namespace is accepted
 * and not used.
 */
export async function startCodecServer(options: CodecServerOptions): Promise<CodecServer> {
  const origins = new Set(options.uiOrigins ?? [DEFAULT_UI_ORIGIN]);
  const log = options.log ?? (() => undefined);
  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      log(`codec server: ${request.method ?? '?'} ${request.url ?? '?'}: ${describe(error)}`);
      if (!response.headersSent) reply(response, 500, { error: 'internal error' });
    });
  });

  async function handle(request: IncomingMessage, response: ServerResponse): Promise<void> {
    const origin = request.headers.origin;
    if (origin !== undefined) {
      // A page from any other site gets no CORS grant and no answer: it must not use our keys.
      if (!origins.has(origin)) return reply(response, 403, { error: `origin ${origin} is not allowed` });
      response.setHeader('Access-Control-Allow-Origin', origin);
      response.setHeader('Access-Control-Allow-Credentials', 'true');
      response.setHeader('Vary', 'Origin');
    }
    const route = new URL(request.url ?? '/', 'http://codec').pathname.replace(/\/+$/, '');
    const action = route === '/decode' ? 'decode' : route === '/encode' ? 'encode' : undefined;
    if (request.method === 'OPTIONS') {
      response.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
      response.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
      response.setHeader('Access-Control-Max-Age', '600');
      // Chromium asks before a public page may call a loopback address (Private Network Access).
      if (request.headers['access-control-request-private-network'] === 'true')
        response.setHeader('Access-Control-Allow-Private-Network', 'true');
      response.writeHead(204).end();
      return;
    }
    if (!action) return reply(response, 404, { error: 'only POST /decode and POST /encode' });
    if (request.method !== 'POST') return reply(response, 405, { error: 'use POST' });
    const body = await readBody(request);
    if (body === undefined) return reply(response, 413, { error: `body over ${MAX_BODY_BYTES} bytes` });
    let json: unknown;
    try {
      json = JSON.parse(body.toString('utf8'));
    } catch {
      return reply(response, 400, { error: 'body is not JSON' });
    }
    const parsed = payloadsBodySchema.safeParse(json);
    if (!parsed.success) return reply(response, 400, { error: 'body must be {"payloads": [...]}' });
    const input = parsed.data.payloads.map(payloadFromJson);
    try {
      const output = await options.codec[action](input);
      reply(response, 200, { payloads: output.map(payloadToJson) });
    } catch (error) {
      // An unknown key id or a payload that fails authentication: the UI shows the message.
      log(`codec server: ${action}: ${describe(error)}`);
      reply(response, 422, { error: describe(error) });
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? DEFAULT_CODEC_SERVER_HOST, () => resolve());
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

function reply(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'Content-Type': 'application/json' }).end(JSON.stringify(body));
}

/** The whole body, or undefined once it passes the size limit. */
async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
