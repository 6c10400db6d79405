/**
 * Where the Temporal Web UI of a server is, so printed links lead somewhere real. keel cannot ask
 * the server (the frontend API does not know its UI), so: KEEL_WEB_UI_URL when set (an empty value
 * turns links off); otherwise, for a server on this machine, the dev server's convention (the UI
 * on the gRPC port + 1000, e.g. 7233 → 8233) when something answers there; otherwise none.
 */

export const WEB_UI_URL_VARIABLE = 'KEEL_WEB_UI_URL';

/** `temporal server start-dev` serves its UI on the frontend port + 1000 unless told otherwise. */
const DEV_SERVER_UI_PORT_OFFSET = 1000;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '::1', '[::1]', '0.0.0.0']);

export interface WebUiOptions {
  /** The Temporal frontend, host:port. */
  address: string;
  env?: Readonly<Record<string, string | undefined>>;
  /** Whether something answers HTTP at a URL; a real request with a short timeout by default. */
  answers?: (url: string) => Promise<boolean>;
}

/** The Web UI's base URL (no trailing slash), or undefined when keel cannot know one. */
export async function webUiBase(options: WebUiOptions): Promise<string | undefined> {
  const configured = (options.env ?? process.env)[WEB_UI_URL_VARIABLE];
  if (configured !== undefined) return configured.trim() === '' ? undefined : configured.replace(/\/+$/, '');
  const candidate = devServerUiGuess(options.address);
  if (candidate === undefined) return undefined;
  return (await (options.answers ?? answersHttp)(candidate)) ? candidate : undefined;
}

/** http://localhost:<port + 1000> for a loopback address; undefined for any other host. */
export function devServerUiGuess(address: string): string | undefined {
  const match = /^(.*):(\d+)$/.exec(address.trim());
  if (!match) return undefined;
  const [, host = '', port = ''] = match;
  if (!LOOPBACK_HOSTS.has(host)) return undefined;
  const uiPort = Number(port) + DEV_SERVER_UI_PORT_OFFSET;
  return uiPort <= 65_535 ? `http://localhost:${uiPort}` : undefined;
}

/** One goal's page under a Web UI base. */
export function workflowPageUrl(base: string, namespace: string, workflowId: string): string {
  return `${base.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(namespace)}/workflows/${encodeURIComponent(workflowId)}`;
}

async function answersHttp(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(500) });
    await response.body?.cancel();
    return true; // any HTTP answer: a UI is there, whatever it says to HEAD /
  } catch {
    return false;
  }
}
