import type { PendingEntry } from '../client/pending-entries';
import type { LedgerEvent } from '../workflows/common/ledger';
import type { GoalStatusView } from '../workflows/goal/messages';
import { heldChangesLines } from '../workflows/tools/held-changes-text';
import { Html, html, shown } from './html';
import { offsetOfSequence } from '../client/goal-stream';
import type { Session } from './sessions';

/**
 * The inbox's pages, server-rendered: every value from a goal goes through `html` (escaped) and
 * `shown` (nothing hidden), forms post to the inbox with the session's CSRF token, and the only
 * script is /inbox.js (the Content-Security-Policy allows no other).
 */

export interface Viewer {
  approver?: string;
  via?: 'token' | 'link';
  csrf: string;
}

export const viewerOf = (session: Session): Viewer => ({
  csrf: session.csrf,
  ...(session.approver === undefined ? {} : { approver: session.approver }),
  ...(session.via === undefined ? {} : { via: session.via }),
});

export function page(title: string, viewer: Viewer | undefined, body: Html): string {
  const who =
    viewer?.approver === undefined
      ? html``
      : html`<p class="who">
          signed in as <strong data-testid="approver">${viewer.approver}</strong>
          (${viewer.via === 'link' ? 'a decision link' : 'token'})
          ${
            viewer.via === 'token'
              ? html`<form method="post" action="/logout" class="inline">
                  <input type="hidden" name="csrf" value="${viewer.csrf}" /><button>sign out</button>
                </form>`
              : ''
          }
        </p>`;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <title>${title} · keel inbox</title>
        <link rel="stylesheet" href="/inbox.css" />
        <script src="/inbox.js" defer></script>
      </head>
      <body>
        <header><a href="/">keel inbox</a> ${who}</header>
        <main>${body}</main>
      </body>
    </html>`.text;
}

export function loginPage(csrf: string, problem?: string): Html {
  return html`<h1>Sign in</h1>
    ${problem === undefined ? '' : html`<p class="problem" role="alert">${problem}</p>`}
    <form method="post" action="/login" id="login">
      <input type="hidden" name="csrf" value="${csrf}" />
      <label>Your inbox token <input type="password" name="token" autocomplete="off" required /></label>
      <button>Sign in</button>
    </form>
    <p>An approver's token comes from <code>keel keygen --inbox-token NAME --approvers FILE</code>.</p>`;
}

export function messagePage(heading: string, lines: readonly string[], role: 'status' | 'alert'): Html {
  return html`<h1>${heading}</h1>
    <div role="${role}" class="${role === 'alert' ? 'problem' : 'done'}" data-testid="outcome">
      ${lines.map((line) => html`<p>${shown(line, { oneLine: true })}</p>`)}
    </div>
    <p><a href="/">back to the inbox</a></p>`;
}

export interface Filters {
  goal?: string;
  tool?: string;
  /** Only the calls this approver may decide (the goal's approvers for the tier a call waits at). */
  approver?: string;
}

/** Whether an approver may decide a call: the goal names them for its tier, or names no one. */
export function mayDecide(entry: Pick<PendingEntry, 'approvers'>, approver: string): boolean {
  return entry.approvers === undefined || entry.approvers.includes(approver);
}

export function inboxPage(options: {
  viewer: Viewer;
  entries: readonly PendingEntry[];
  notes: readonly string[];
  signed: ReadonlySet<string>;
  heldKeys: ReadonlySet<string>;
  filters: Filters;
}): Html {
  const { viewer, filters } = options;
  const entries = options.entries.filter(
    (entry) =>
      entry.callId !== 'review' &&
      (filters.goal === undefined || entry.workflowId.includes(filters.goal)) &&
      (filters.tool === undefined || entry.toolName === filters.tool) &&
      (filters.approver === undefined || mayDecide(entry, filters.approver)),
  );
  return html`<h1>Waiting for a decision</h1>
    <form method="get" action="/" class="filters">
      <label>goal <input name="goal" value="${filters.goal ?? ''}" /></label>
      <label>tool <input name="tool" value="${filters.tool ?? ''}" /></label>
      <label>approver <input name="approver" value="${filters.approver ?? ''}" /></label>
      <button>filter</button>
      ${
        viewer.approver === undefined
          ? ''
          : html`<a href="/?approver=${encodeURIComponent(viewer.approver)}" data-testid="mine"
              >only the calls I may decide</a
            >`
      }
    </form>
    ${options.notes.map((note) => html`<p class="note">${shown(note, { oneLine: true })}</p>`)}
    ${
      entries.length === 0
        ? html`<p data-testid="empty">No call waits for a decision.</p>`
        : html`<form method="post" action="/decide-bulk" id="bulk" class="bulk">
              <input type="hidden" name="csrf" value="${viewer.csrf}" />
              <label>reason <input name="reason" /></label>
              <button name="decision" value="approve">approve the chosen</button>
              <button name="decision" value="deny">deny the chosen</button>
            </form>
            ${entries.map((entry) =>
              callCard(entry, viewer, {
                signed: options.signed.has(entry.workflowId),
                keyHeld: viewer.approver !== undefined && options.heldKeys.has(viewer.approver),
                bulk: true,
              }),
            )}`
    }`;
}

/** One waiting call: all of it, why it waits, what it changes, and the forms that decide it. */
export function callCard(
  entry: PendingEntry,
  viewer: Viewer,
  options: { signed: boolean; keyHeld: boolean; bulk: boolean; link?: string },
): Html {
  const digest = entry.changesDigest ?? '';
  return html`<section class="call" data-call="${entry.callId}" data-goal="${entry.workflowId}">
    <h2>
      ${
        options.bulk
          ? html`<input
              type="checkbox"
              form="bulk"
              name="call"
              value="${`${entry.workflowId} ${entry.callId} ${digest}`}"
              aria-label="choose ${entry.callId}"
            />`
          : ''
      }
      <span class="tier ${entry.reversibility}">${entry.reversibility}</span>
      ${shown(entry.summary, { oneLine: true })}
    </h2>
    <p class="meta">
      goal <a href="/goals/${encodeURIComponent(entry.workflowId)}">${entry.workflowId}</a> · call
      <code>${entry.callId}</code> · tool <code>${entry.toolName ?? ''}</code> · waits until ${entry.deadline}
      ${
        entry.approvers === undefined
          ? ''
          : html`· who may decide:
              <span data-testid="approvers">${shown(entry.approvers.join(', '), { oneLine: true })}</span>`
      }
    </p>
    <pre class="whole-call">${shown(entry.call ?? '')}</pre>
    ${entry.reason === undefined ? '' : html`<p class="why">why it waits: ${shown(entry.reason, { oneLine: true })}</p>`}
    ${
      entry.heldChanges === undefined
        ? ''
        : html`<div class="held">
            <p>It ran on a copy-on-write layer: approving applies these changes, denying discards them.</p>
            <ul>
              ${heldChangesLines(entry.heldChanges).map((line) => html`<li>${line}</li>`)}
            </ul>
            <p class="digest">${digest}</p>
            ${entry.heldDiff === undefined ? '' : diffBlock(entry.heldDiff)}
          </div>`
    }
    <form method="post" action="/decide" class="decide">
      <input type="hidden" name="csrf" value="${viewer.csrf}" />
      <input type="hidden" name="goal" value="${entry.workflowId}" />
      <input type="hidden" name="call" value="${entry.callId}" />
      <input type="hidden" name="changes" value="${digest}" />
      <label>reason <input name="reason" /></label>
      <label
        ><input type="checkbox" name="remember" value="yes" /> remember as a rule for later calls like this
        one in this goal</label
      >
      <label>rule pattern (empty: exactly this call) <input name="pattern" /></label>
      ${
        entry.reversibility === 'irreversible'
          ? html`<label
              ><input type="checkbox" name="irreversible" value="yes" /> the rule also covers irreversible
              calls (this one is)</label
            >`
          : ''
      }
      ${
        options.signed && !options.keyHeld
          ? html`<label
              >This goal requires signed decisions: paste your Ed25519 private key (PEM). It signs this
              decision and is discarded. <textarea name="signingKey" rows="4" autocomplete="off"></textarea>
            </label>`
          : options.signed
            ? html`<p class="note">Signed with the key this inbox holds for ${viewer.approver ?? ''}.</p>`
            : ''
      }
      <button name="decision" value="approve" class="approve">Approve</button>
      <button name="decision" value="deny" class="deny">Deny</button>
    </form>
  </section>`;
}

/** The held changes line by line, additions and removals marked by class (the text says it too). */
function diffBlock(diff: string): Html {
  // Lines joined here, not in the template: a formatter may fold a template's newlines to spaces.
  const lines = diff
    .replace(/\n$/, '')
    .split('\n')
    .map((line) => html`<span class="${diffLineClass(line)}">${shown(line)}</span>`.text);
  const body = new Html(lines.join('\n'));
  return html`<details class="diff" open>
    <summary>the changes, line by line</summary>
    <pre data-testid="diff">${body}</pre>
  </details>`;
}

function diffLineClass(line: string): string {
  if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('Index:') || line.startsWith('==='))
    return 'file';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  return 'same';
}

export function goalPage(options: {
  viewer: Viewer;
  workflowId: string;
  view?: GoalStatusView;
  note?: string;
  events: readonly LedgerEvent[];
  entries: readonly PendingEntry[];
  keyHeld: boolean;
}): Html {
  const { view, workflowId } = options;
  const last = offsetOfSequence(options.events.at(-1)?.sequence ?? 0);
  return html`<h1>${workflowId}</h1>
    ${options.note === undefined ? '' : html`<p class="note">${options.note}</p>`}
    ${
      view === undefined
        ? ''
        : html`<p>${view.status} (${view.phase}) — ${shown(view.goal, { oneLine: true })}</p>
            <h2>Latest turns</h2>
            <pre class="turns" data-testid="turns">${shown(view.latestMessages.join('\n'))}</pre>`
    }
    ${options.entries
      .filter((entry) => entry.callId !== 'review')
      .map((entry) =>
        callCard(entry, options.viewer, {
          signed: view?.signedApprovals === true,
          keyHeld: options.keyHeld,
          bulk: false,
        }),
      )}
    <h2>Events</h2>
    <ol id="events" data-goal="${workflowId}" data-after="${last}">
      ${options.events.map((event) => eventItem(event))}
    </ol>`;
}

export function eventItem(event: LedgerEvent): Html {
  return html`<li data-offset="${offsetOfSequence(event.sequence)}">
    <time>${event.at}</time> <code>${event.kind}</code> ${shown(event.summary, { oneLine: true })}
  </li>`;
}

/** The page a decision link opens: its one call, the goal's latest turns, approve or deny. */
export function linkPage(options: {
  viewer: Viewer;
  entry: PendingEntry;
  view: GoalStatusView;
  keyHeld: boolean;
}): Html {
  return html`<h1>Decide this call</h1>
    ${callCard(options.entry, options.viewer, {
      signed: options.view.signedApprovals === true,
      keyHeld: options.keyHeld,
      bulk: false,
    })}
    <h2>The goal's latest turns</h2>
    <p>${shown(options.view.goal, { oneLine: true })}</p>
    <pre class="turns" data-testid="turns">${shown(options.view.latestMessages.join('\n'))}</pre>`;
}
