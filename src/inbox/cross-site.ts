import { timingSafeEqual } from 'node:crypto';

/**
 * What keeps another site from deciding through an approver's browser. A state-changing request
 * must carry the session's CSRF token in its form (a page elsewhere cannot read it), and when the
 * browser says where the request comes from (Origin, Sec-Fetch-Site) that must be the inbox
 * itself. The Host header must name the inbox too, so a hostile page that rebinds its own DNS name
 * to 127.0.0.1 reaches no page of it.
 */

export interface RequestSource {
  host?: string;
  origin?: string;
  secFetchSite?: string;
}

/** Why a request names a host the inbox does not answer as, or undefined when it names one. */
export function hostRefusal(source: RequestSource, allowedHosts: ReadonlySet<string>): string | undefined {
  if (source.host === undefined || !allowedHosts.has(source.host.toLowerCase()))
    return 'this inbox does not answer for that host name';
  return undefined;
}

/** Why a form post is refused as cross-site, or undefined when it is the inbox's own. */
export function crossSiteRefusal(
  source: RequestSource,
  allowedHosts: ReadonlySet<string>,
  expectedToken: string | undefined,
  givenToken: string | undefined,
): string | undefined {
  const host = hostRefusal(source, allowedHosts);
  if (host !== undefined) return host;
  // 'none' is a user's own navigation (typed, bookmarked), never a form another page submits.
  if (source.secFetchSite !== undefined && !['same-origin', 'none'].includes(source.secFetchSite))
    return 'the request came from another site';
  if (source.origin !== undefined && source.origin !== 'null') {
    let originHost: string;
    try {
      originHost = new URL(source.origin).host.toLowerCase();
    } catch {
      return 'the request came from another site';
    }
    if (originHost !== source.host?.toLowerCase()) return 'the request came from another site';
  } else if (source.origin === 'null') {
    return 'the request came from another site';
  }
  if (expectedToken === undefined || givenToken === undefined || !sameText(expectedToken, givenToken))
    return 'the form has no valid token (reload the page and try again)';
  return undefined;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a, 'utf8');
  const right = Buffer.from(b, 'utf8');
  return left.length === right.length && timingSafeEqual(left, right);
}
