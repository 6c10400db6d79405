import { loadSigningKey } from '../client/approval-keys';
import { verifyDecisionLink } from '../client/decision-link';
import { pendingEntries } from '../client/pending-entries';
import type { KeyObject } from 'node:crypto';
import { crossSiteRefusal } from './cross-site';
import type { Decision, Outcome } from './goals';
import { linkPage, messagePage, viewerOf } from './pages';
import type { RouteContext } from './server';
import { sessionCookie } from './sessions';

/**
 * Deciding: by a signed-in approver's form, by a decision link's form, or several calls at once.
 * Every check that can refuse runs before anything is sent to the goal; the goal then judges the
 * decision itself (its approver policy, signatures, the held changes' digest) and may still refuse.
 */

const LINK_REFUSALS = {
  malformed: 'this link is not a decision link',
  'bad-signature': 'this link is not valid (it was not made with this inbox secret)',
  expired: 'this link has expired: decide from the inbox, or ask for a new link',
} as const;

/** GET /decide?link=…: the link's one call, with approve and deny, under a session of the link's own. */
export async function openLink(context: RouteContext): Promise<void> {
  const refuse = (line: string, status = 403) => {
    context.options.log?.(`inbox: refused a decision link from ${context.peer}: ${line}`);
    context.send(status, 'Refused', messagePage('Refused', [line], 'alert'));
  };
  const secret = context.options.linkSecret;
  if (secret === undefined)
    return refuse('this inbox takes no decision links (KEEL_INBOX_SECRET is not set)');
  const check = verifyDecisionLink(context.url.searchParams.get('link') ?? '', secret, context.now());
  if (!check.ok) return refuse(LINK_REFUSALS[check.reason]);
  const claims = check.claims;
  if (context.options.usedLinks.used(claims.nonce))
    return refuse('this link was used already: it decides once');
  const { view, note } = await context.options.goals.goal(claims.goalId);
  const entry =
    view === undefined
      ? undefined
      : pendingEntries(claims.goalId, view).find((each) => each.callId === claims.callId);
  if (view === undefined || entry === undefined)
    return context.send(
      409,
      'Not waiting',
      messagePage(
        'Nothing to decide',
        [note ?? `call ${claims.callId} of ${claims.goalId} no longer waits for a decision`],
        'status',
      ),
    );
  // Opening does not use the link up (a chat's link preview opens it too); deciding does.
  const session = context.sessions.create({ approver: claims.approver, via: 'link', link: claims });
  const viewer = viewerOf(session);
  const keyHeld = context.options.signingKeys?.has(claims.approver) === true;
  context.send(
    200,
    'Decide',
    linkPage({ viewer, entry, view, keyHeld }),
    viewer,
    sessionCookie(session, context.now()),
  );
}

/** POST /decide: one call, by the signed-in approver or the link's. */
export async function decideByForm(context: RouteContext): Promise<void> {
  const form = await context.form();
  const session = context.session;
  const refuse = (line: string, status = 403) => {
    context.options.log?.(`inbox: refused a decision from ${context.peer}: ${line}`);
    context.send(status, 'Refused', messagePage('Refused', [line], 'alert'));
  };
  if (session?.approver === undefined || session.via === undefined)
    return refuse('sign in with your token, or open your decision link again');
  const crossSite = crossSiteRefusal(
    context.source,
    context.allowedHosts,
    session.csrf,
    form.get('csrf') ?? undefined,
  );
  if (crossSite !== undefined) return refuse(crossSite);
  const workflowId = form.get('goal') ?? '';
  const callId = form.get('call') ?? '';
  const verdict = form.get('decision');
  if (verdict !== 'approve' && verdict !== 'deny') return refuse('choose approve or deny', 400);
  const key = signingKeyOf(context, session.approver, form.get('signingKey'));
  if (!key.ok) return refuse(key.message, 400);
  if (session.via === 'link') {
    const link = session.link;
    if (link === undefined || link.goalId !== workflowId || link.callId !== callId)
      return refuse('this link decides another call');
    if (context.now() >= link.expiresAt) return refuse(LINK_REFUSALS.expired);
    // Claimed (durably) before sending: a crash after this cannot let the link decide twice.
    if (!context.options.usedLinks.claim(link.nonce, link.expiresAt))
      return refuse('this link was used already: it decides once');
    context.sessions.delete(session.id);
  }
  const decision = decisionOf(
    form,
    verdict === 'approve',
    session.approver,
    `inbox ${context.peer}, ${session.via}`,
    key.key,
  );
  const outcome = await context.options.goals.decide(workflowId, callId, {
    ...decision,
    ...(form.get('changes') ? { changesDigest: form.get('changes') ?? '' } : {}),
  });
  report(
    context,
    outcome,
    `${session.approver} ${verdict} ${workflowId} ${callId} from ${context.peer} (${session.via})`,
  );
}

/** POST /decide-bulk: the chosen calls, grouped by goal, each goal's in one Update (all or none). */
export async function decideInBulk(context: RouteContext): Promise<void> {
  const form = await context.form();
  const session = context.session;
  const refuse = (line: string, status = 403) => {
    context.options.log?.(`inbox: refused a bulk decision from ${context.peer}: ${line}`);
    context.send(status, 'Refused', messagePage('Refused', [line], 'alert'));
  };
  if (session?.via !== 'token' || session.approver === undefined)
    return refuse('sign in with your token first (a decision link decides its one call only)');
  const crossSite = crossSiteRefusal(
    context.source,
    context.allowedHosts,
    session.csrf,
    form.get('csrf') ?? undefined,
  );
  if (crossSite !== undefined) return refuse(crossSite);
  const verdict = form.get('decision');
  if (verdict !== 'approve' && verdict !== 'deny') return refuse('choose approve or deny', 400);
  const byGoal = new Map<string, Map<string, string>>();
  for (const value of form.getAll('call')) {
    const [workflowId = '', callId = '', digest = ''] = value.split(' ');
    if (workflowId === '' || callId === '') continue;
    byGoal.set(workflowId, (byGoal.get(workflowId) ?? new Map<string, string>()).set(callId, digest));
  }
  if (byGoal.size === 0) return refuse('choose at least one call', 400);
  const key = signingKeyOf(context, session.approver, undefined);
  const decision = decisionOf(
    form,
    verdict === 'approve',
    session.approver,
    `inbox ${context.peer}, token`,
    key.ok ? key.key : undefined,
  );
  const outcomes: Outcome[] = [];
  for (const [workflowId, calls] of byGoal) {
    const outcome = await context.options.goals.decideBulk(workflowId, calls, decision);
    outcomes.push({ ok: outcome.ok, message: `${workflowId}: ${outcome.message}` });
  }
  const ok = outcomes.every((outcome) => outcome.ok);
  report(
    context,
    { ok, message: outcomes.map((outcome) => outcome.message).join('\n') },
    `${session.approver} ${verdict} ${[...byGoal.keys()].join(', ')} in bulk from ${context.peer}`,
  );
}

function decisionOf(
  form: URLSearchParams,
  approved: boolean,
  approver: string,
  origin: string,
  signingKey: KeyObject | undefined,
): Decision {
  const reason = (form.get('reason') ?? '').trim();
  return {
    approved,
    approver,
    origin,
    ...(reason === '' ? {} : { reason }),
    ...(form.get('remember') === 'yes' ? { rule: ruleOf(form) } : {}),
    ...(signingKey === undefined ? {} : { signingKey }),
  };
}

/**
 * The rule remembered with a decision: the pattern typed (none: exactly this call), and whether it
 * covers irreversible calls. The goal covers those only when the rule says so, as `keel approve
 * --rule --irreversible` does: without the form's `irreversible` box, remembering an irreversible
 * call is refused by the goal and the call keeps waiting.
 */
function ruleOf(form: URLSearchParams): NonNullable<Decision['rule']> {
  const pattern = (form.get('pattern') ?? '').trim();
  return {
    ...(pattern === '' ? {} : { pattern }),
    ...(form.get('irreversible') === 'yes' ? { irreversible: true } : {}),
  };
}

/**
 * The key that signs this decision: the one the inbox was told to hold for the approver, else the
 * one they pasted into this form, used for this decision and dropped with the request. A pasted
 * text must be a PEM: loadSigningKey would read a path from the inbox's own disk.
 */
function signingKeyOf(
  context: RouteContext,
  approver: string,
  pasted: string | null | undefined,
): { ok: true; key?: KeyObject } | { ok: false; message: string } {
  const held = context.options.signingKeys?.get(approver);
  if (held !== undefined) return { ok: true, key: held };
  const text = (pasted ?? '').trim();
  if (text === '') return { ok: true };
  if (!text.startsWith('-----BEGIN'))
    return { ok: false, message: 'the pasted key is not a PEM private key' };
  try {
    return { ok: true, key: loadSigningKey(text) };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : 'the pasted key is not usable' };
  }
}

function report(context: RouteContext, outcome: Outcome, line: string): void {
  context.options.log?.(`inbox: ${outcome.ok ? 'sent' : 'refused'}: ${line}`);
  const lines = outcome.message.split('\n');
  if (outcome.ok) return context.send(200, 'Decided', messagePage('Decided', lines, 'status'));
  context.send(409, 'Refused', messagePage('Refused', lines, 'alert'));
}
