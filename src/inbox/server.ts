import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { KeyObject } from 'node:crypto';
import { approverOfToken, type ApproverTokens } from './credentials';
import { crossSiteRefusal, hostRefusal, type RequestSource } from './cross-site';
import { INBOX_CSS, INBOX_JS } from './assets';
import { decideByForm, decideInBulk, openLink } from './decide-routes';
import { eventsAfter, streamEvents } from './events-stream';
import type { InboxGoals } from './goals';
import { goalPage, inboxPage, loginPage, messagePage, page, viewerOf, type Viewer } from './pages';
import {
  CLEARED_SESSION_COOKIE,
  cookieValue,
  SESSION_COOKIE,
  sessionCookie,
  Sessions,
  type Session,
} from './sessions';
import type { UsedLinks } from './used-links';
import { pendingEntries } from '../client/pending-entries';

/**
 * `keel inbox`: a small web app on node:http where approvers see every waiting call and decide
 * it. Who may decide is proven by a token (a session cookie after signing in) or by a signed
 * one-time link; every form is checked against cross-site requests (cross-site.ts); a decision is
 * sent as the CLI sends it and records the approver and where it came from.
 */

export interface InboxOptions {
  goals: InboxGoals;
  approvers: ApproverTokens;
  /** KEEL_INBOX_SECRET's bytes: without it, decision links are refused. */
  linkSecret?: Buffer;
  usedLinks: UsedLinks;
  /** Keys the inbox was told to hold (`--signing-key NAME=FILE`): it signs for these approvers. */
  signingKeys?: ReadonlyMap<string, KeyObject>;
  host?: string;
  port?: number;
  /** The address approvers open (a proxy's); its host is answered too. */
  publicUrl?: string;
  now?: () => number;
  /** A line per decision and refusal (who, which call, from where); never a credential. */
  log?: (line: string) => void;
}

export interface Inbox {
  url: string;
  close(): Promise<void>;
}

export const DEFAULT_INBOX_HOST = '127.0.0.1';
export const DEFAULT_INBOX_PORT = 8788;
const MAX_BODY_BYTES = 64 * 1024;

/** What every route is handed. */
export interface RouteContext {
  options: InboxOptions;
  sessions: Sessions;
  allowedHosts: ReadonlySet<string>;
  request: IncomingMessage;
  response: ServerResponse;
  url: URL;
  session: Session | undefined;
  now: () => number;
  /** Where the request came from, for the decision's origin: the peer's address. */
  peer: string;
  send(
    status: number,
    title: string,
    body: Parameters<typeof page>[2],
    viewer?: Viewer,
    cookie?: string,
  ): void;
  redirect(location: string, cookie?: string): void;
  form(): Promise<URLSearchParams>;
  source: RequestSource;
}

export async function startInbox(options: InboxOptions): Promise<Inbox> {
  const sessions = new Sessions(options.now);
  const allowedHosts = new Set<string>();
  const server = createServer((request, response) => {
    const context = routeContext(options, sessions, allowedHosts, request, response);
    route(context).catch((error: unknown) => {
      // The message only: a stack or a request line could carry a link's token.
      options.log?.(`inbox: ${request.method ?? ''} ${context.url.pathname} failed: ${String(error)}`);
      if (!response.headersSent)
        context.send(
          500,
          'Error',
          messagePage('Something went wrong', ['the inbox could not answer; try again'], 'alert'),
        );
      else response.end();
    });
  });
  const host = options.host ?? DEFAULT_INBOX_HOST;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? DEFAULT_INBOX_PORT, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const shownHost = host.includes(':') ? `[${host}]` : host;
  allowedHosts.add(`${shownHost}:${port}`);
  if (host === '127.0.0.1' || host === '::1') allowedHosts.add(`localhost:${port}`);
  if (options.publicUrl !== undefined) allowedHosts.add(new URL(options.publicUrl).host.toLowerCase());
  return {
    url: options.publicUrl ?? `http://${shownHost}:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections(); // open event streams end with it
      }),
  };
}

function routeContext(
  options: InboxOptions,
  sessions: Sessions,
  allowedHosts: ReadonlySet<string>,
  request: IncomingMessage,
  response: ServerResponse,
): RouteContext {
  const now = options.now ?? Date.now;
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value[0] : value;
  };
  const securityHeaders = {
    'Content-Security-Policy':
      "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    // A decision link's token is in the address: no other site gets it as a referrer. Not
    // no-referrer: with it Chromium sends "Origin: null" on the inbox's own forms.
    'Referrer-Policy': 'same-origin',
    'Cache-Control': 'no-store',
  };
  for (const [name, value] of Object.entries(securityHeaders)) response.setHeader(name, value);
  return {
    options,
    sessions,
    allowedHosts,
    request,
    response,
    url: new URL(request.url ?? '/', 'http://inbox.invalid'),
    session: sessions.get(cookieValue(header('cookie'), SESSION_COOKIE)),
    now,
    peer: (request.socket.remoteAddress ?? 'unknown').replace(/^::ffff:/, ''),
    source: { host: header('host'), origin: header('origin'), secFetchSite: header('sec-fetch-site') },
    send(status, title, body, viewer, cookie) {
      response.writeHead(status, {
        'Content-Type': 'text/html; charset=utf-8',
        ...(cookie === undefined ? {} : { 'Set-Cookie': cookie }),
      });
      response.end(page(title, viewer, body));
    },
    redirect(location, cookie) {
      response.writeHead(303, {
        Location: location,
        ...(cookie === undefined ? {} : { 'Set-Cookie': cookie }),
      });
      response.end();
    },
    form: () => readForm(request),
  };
}

async function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_BODY_BYTES) throw new Error('the form is too large');
    chunks.push(chunk);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
}

async function route(context: RouteContext): Promise<void> {
  const { request, response, url, sessions, options } = context;
  const hostProblem = hostRefusal(context.source, context.allowedHosts);
  if (hostProblem !== undefined) {
    response.writeHead(421, { 'Content-Type': 'text/plain; charset=utf-8' });
    response.end(`${hostProblem}\n`);
    return;
  }
  const method = request.method ?? 'GET';
  const path = url.pathname;
  if (method === 'GET' && (path === '/inbox.css' || path === '/inbox.js')) {
    const css = path === '/inbox.css';
    response.writeHead(200, { 'Content-Type': `${css ? 'text/css' : 'text/javascript'}; charset=utf-8` });
    response.end(css ? INBOX_CSS : INBOX_JS);
    return;
  }
  if (method === 'GET' && path === '/login') {
    if (context.session?.via === 'token') return context.redirect('/');
    // A session of its own for the form's token; one already without an approver is reused.
    const session =
      context.session?.approver === undefined ? (context.session ?? sessions.create()) : sessions.create();
    context.send(200, 'Sign in', loginPage(session.csrf), undefined, sessionCookie(session, context.now()));
    return;
  }
  if (method === 'POST' && path === '/login') return logIn(context);
  if (method === 'GET' && path === '/decide') return openLink(context);
  if (method === 'POST' && path === '/decide') return decideByForm(context);
  if (method === 'POST' && path === '/decide-bulk') return decideInBulk(context);
  const session = context.session;
  if (session?.via !== 'token') {
    // Only the pages a signed-in approver opens lead to the sign-in: a browser's own request (a
    // favicon) must not replace a decision link's session with a new one.
    if (method === 'GET' && (path === '/' || path.startsWith('/goals/'))) return context.redirect('/login');
    if (method === 'GET')
      return context.send(404, 'Not found', messagePage('Not found', [`nothing at ${path}`], 'alert'));
    return context.send(403, 'Refused', messagePage('Refused', ['sign in with your token first'], 'alert'));
  }
  if (method === 'POST' && path === '/logout') {
    const refusal = crossSiteRefusal(
      context.source,
      context.allowedHosts,
      session.csrf,
      (await context.form()).get('csrf') ?? undefined,
    );
    if (refusal !== undefined)
      return context.send(403, 'Refused', messagePage('Refused', [refusal], 'alert'));
    sessions.delete(session.id);
    return context.redirect('/login', CLEARED_SESSION_COOKIE);
  }
  const viewer = viewerOf(session);
  const heldKeys = new Set(options.signingKeys?.keys() ?? []);
  if (method === 'GET' && path === '/') {
    const { entries, notes, signed } = await options.goals.pending();
    const filters = {
      ...(url.searchParams.get('goal') ? { goal: url.searchParams.get('goal') ?? '' } : {}),
      ...(url.searchParams.get('tool') ? { tool: url.searchParams.get('tool') ?? '' } : {}),
      ...(url.searchParams.get('approver') ? { approver: url.searchParams.get('approver') ?? '' } : {}),
    };
    return context.send(
      200,
      'Inbox',
      inboxPage({ viewer, entries, notes, signed, heldKeys, filters }),
      viewer,
    );
  }
  const goalPath = /^\/goals\/([^/]+)(\/events)?$/.exec(path);
  if (method === 'GET' && goalPath) {
    const workflowId = decodeURIComponent(goalPath[1] ?? '');
    if (goalPath[2] !== undefined) {
      const stop = new AbortController();
      request.on('close', () => stop.abort());
      const lastEventId = request.headers['last-event-id'];
      const after = eventsAfter(
        Array.isArray(lastEventId) ? lastEventId[0] : lastEventId,
        url.searchParams.get('after'),
      );
      return streamEvents(response, { goals: options.goals, workflowId, after, signal: stop.signal });
    }
    const { view, note } = await options.goals.goal(workflowId);
    const events = view === undefined ? [] : await options.goals.events(workflowId, 0).catch(() => []);
    const entries = view === undefined ? [] : pendingEntries(workflowId, view);
    const keyHeld = heldKeys.has(session.approver ?? '');
    return context.send(
      200,
      workflowId,
      goalPage({
        viewer,
        workflowId,
        ...(view ? { view } : {}),
        ...(note ? { note } : {}),
        events,
        entries,
        keyHeld,
      }),
      viewer,
    );
  }
  context.send(404, 'Not found', messagePage('Not found', [`nothing at ${path}`], 'alert'), viewer);
}

/** A token for a session: refused in one line that says nothing about which part was wrong. */
async function logIn(context: RouteContext): Promise<void> {
  const form = await context.form();
  const refusal = crossSiteRefusal(
    context.source,
    context.allowedHosts,
    context.session?.csrf,
    form.get('csrf') ?? undefined,
  );
  if (refusal !== undefined) return context.send(403, 'Refused', messagePage('Refused', [refusal], 'alert'));
  const approver = approverOfToken(context.options.approvers, form.get('token') ?? '');
  if (context.session !== undefined) context.sessions.delete(context.session.id);
  if (approver === undefined) {
    context.options.log?.(`inbox: refused a sign-in from ${context.peer}: not an approver's token`);
    const retry = context.sessions.create();
    return context.send(
      403,
      'Sign in',
      loginPage(retry.csrf, "that is not an approver's token"),
      undefined,
      sessionCookie(retry, context.now()),
    );
  }
  // A new id at sign-in: a session id someone planted before cannot become a signed-in one.
  const session = context.sessions.create({ approver, via: 'token' });
  context.redirect('/', sessionCookie(session, context.now()));
}
