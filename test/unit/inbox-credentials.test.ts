import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  approverOfToken,
  newInboxToken,
  parseApproverTokens,
  tokenHash,
  withApproverToken,
} from '../../src/inbox/credentials';
import { crossSiteRefusal, hostRefusal } from '../../src/inbox/cross-site';
import { cookieValue, sessionCookie, Sessions } from '../../src/inbox/sessions';

test('a token signs in as its approver only; a wrong, empty or near token signs in as nobody', () => {
  const alice = newInboxToken();
  const bob = newInboxToken();
  assert.notEqual(alice, bob);
  const tokens = parseApproverTokens(JSON.stringify({ alice: tokenHash(alice), bob: tokenHash(bob) }), 'f');
  assert.equal(approverOfToken(tokens, alice), 'alice');
  assert.equal(approverOfToken(tokens, ` ${bob}\n`), 'bob', 'a pasted token keeps no stray blanks');
  assert.equal(approverOfToken(tokens, newInboxToken()), undefined);
  assert.equal(approverOfToken(tokens, ''), undefined);
  assert.equal(approverOfToken(tokens, `${alice}x`), undefined);
  assert.equal(approverOfToken(tokens, tokenHash(alice)), undefined, 'the hash itself is no token');
});

test('the approvers file keeps hashes only, and a mistake names the entry without its value', () => {
  const token = newInboxToken();
  const text = withApproverToken(undefined, 'alice', tokenHash(token));
  assert.doesNotMatch(text, new RegExp(token));
  const again = withApproverToken(text, 'bob', tokenHash(newInboxToken()));
  assert.deepEqual([...parseApproverTokens(again, 'f').keys()], ['alice', 'bob']);
  assert.throws(
    () => parseApproverTokens(JSON.stringify({ mallory: token }), 'approvers.json'),
    (error: Error) => error.message.includes('"mallory"') && !error.message.includes(token),
  );
  assert.throws(() => parseApproverTokens('{}', 'approvers.json'), /names no approver/);
  assert.throws(() => parseApproverTokens('not json', 'approvers.json'), /approvers.json is not JSON/);
});

const hosts = new Set(['127.0.0.1:8788', 'localhost:8788']);
const own = { host: '127.0.0.1:8788', origin: 'http://127.0.0.1:8788', secFetchSite: 'same-origin' };

test('a form from the inbox itself with its session token passes; every cross-site sign refuses it', () => {
  assert.equal(crossSiteRefusal(own, hosts, 'csrf-1', 'csrf-1'), undefined);
  // A client that sends no Origin or Sec-Fetch-Site (curl) still needs the token.
  assert.equal(crossSiteRefusal({ host: '127.0.0.1:8788' }, hosts, 'csrf-1', 'csrf-1'), undefined);
  assert.match(crossSiteRefusal(own, hosts, 'csrf-1', undefined) ?? '', /no valid token/);
  assert.match(crossSiteRefusal(own, hosts, 'csrf-1', 'csrf-2') ?? '', /no valid token/);
  assert.match(crossSiteRefusal(own, hosts, undefined, 'csrf-1') ?? '', /no valid token/);
  assert.match(
    crossSiteRefusal({ ...own, origin: 'http://evil.example' }, hosts, 'c', 'c') ?? '',
    /another site/,
  );
  assert.match(crossSiteRefusal({ ...own, origin: 'null' }, hosts, 'c', 'c') ?? '', /another site/);
  assert.match(
    crossSiteRefusal({ ...own, secFetchSite: 'cross-site' }, hosts, 'c', 'c') ?? '',
    /another site/,
  );
  assert.match(
    crossSiteRefusal({ ...own, secFetchSite: 'same-site' }, hosts, 'c', 'c') ?? '',
    /another site/,
  );
  assert.match(
    crossSiteRefusal({ ...own, origin: 'http://localhost:8788' }, hosts, 'c', 'c') ?? '',
    /another site/,
    'the origin must be the host the request names',
  );
});

test('a request naming another host (a rebound DNS name) is refused', () => {
  assert.equal(hostRefusal({ host: 'LOCALHOST:8788' }, hosts), undefined);
  assert.match(hostRefusal({ host: 'evil.example:8788' }, hosts) ?? '', /does not answer/);
  assert.match(hostRefusal({}, hosts) ?? '', /does not answer/);
  assert.match(
    crossSiteRefusal({ ...own, host: 'evil.example', origin: 'http://evil.example' }, hosts, 'c', 'c') ?? '',
    /does not answer/,
  );
});

test('sessions: HttpOnly, SameSite=Strict cookies; expired ones and a link past its expiry are gone', () => {
  let now = 1_000_000;
  const sessions = new Sessions(() => now);
  const session = sessions.create({ approver: 'alice', via: 'token' }, 60_000);
  const cookie = sessionCookie(session, now);
  assert.match(cookie, /; HttpOnly; SameSite=Strict; Path=\/; Max-Age=60$/);
  assert.equal(cookieValue(`a=b; ${cookie.split(';')[0] ?? ''}`, 'keel_inbox_session'), session.id);
  assert.equal(sessions.get(session.id)?.approver, 'alice');
  const link = sessions.create(
    {
      approver: 'bob',
      via: 'link',
      link: { goalId: 'g', callId: 'c', approver: 'bob', expiresAt: now + 5_000, nonce: 'n'.repeat(16) },
    },
    60_000,
  );
  assert.notEqual(link.csrf, session.csrf);
  now += 5_000;
  assert.equal(sessions.get(link.id), undefined, 'a link session ends with its link');
  assert.equal(sessions.get(session.id)?.approver, 'alice');
  now += 55_000;
  assert.equal(sessions.get(session.id), undefined);
  assert.equal(sessions.get(undefined), undefined);
});
