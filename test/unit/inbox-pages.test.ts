import { test } from 'node:test';
import assert from 'node:assert/strict';
import { pendingEntries } from '../../src/client/pending-entries';
import { escapeHtml, html } from '../../src/inbox/html';
import { callCard, eventItem, goalPage, inboxPage, page } from '../../src/inbox/pages';
import type { GoalStatusView, PendingApprovalView } from '../../src/workflows/goal/messages';

const hostile = '<script>alert(1)</script>';

function pendingCall(): PendingApprovalView {
  return {
    callId: 'toolu_1',
    toolName: 'run_command',
    summary: `run_command: ${hostile}`,
    call: `run_command: ${hostile}`,
    reversibility: 'irreversible',
    input: { command: `echo "${hostile}" > x.html` },
    requestedAt: '2026-01-01T00:00:00Z',
    deadline: '2026-01-02T00:00:00Z',
    reason: `the model says ${hostile}`,
    heldChanges: { created: [`${hostile}.html`], modified: [], deleted: [] },
  };
}

const viewer = { approver: `al"ice`, via: 'token' as const, csrf: 'csrf-token' };

test('escapeHtml and html escape every interpolated value, and nest what html made', () => {
  assert.equal(escapeHtml(`<a href="x">'&'</a>`), '&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  const inner = html`<b>${hostile}</b>`;
  assert.equal(
    html`<p>${inner}${[1, html`<i></i>`, undefined, false]}</p>`.text,
    `<p><b>&lt;script&gt;alert(1)&lt;/script&gt;</b>1<i></i></p>`,
  );
});

test("a hostile model's call, reason, held paths and turns are shown as text, never as markup", () => {
  const [entry] = pendingEntries('goal-1', { awaitingReview: false, pendingApprovals: [pendingCall()] });
  assert.ok(entry);
  const card = callCard(entry, viewer, { signed: false, keyHeld: false, bulk: true }).text;
  assert.doesNotMatch(card, /<script/);
  assert.match(card, /&lt;script&gt;alert\(1\)&lt;\/script&gt;/);
  assert.match(card, /creates: &lt;script&gt;/);
  assert.match(card, /name="csrf" value="csrf-token"/);
  assert.match(card, /name="changes" value="sha256:/);
  const view = {
    goal: hostile,
    status: 'running',
    phase: 'awaiting_approval',
    latestMessages: [hostile],
    signedApprovals: false,
  } as unknown as GoalStatusView;
  const event = { sequence: 3, at: 'now', kind: 'approval.requested' as const, summary: hostile, data: {} };
  const goal = goalPage({
    viewer,
    workflowId: `goal-${hostile}`,
    view,
    events: [event],
    entries: [entry],
    keyHeld: false,
  }).text;
  assert.doesNotMatch(goal, /<script/);
  assert.match(eventItem(event).text, /data-offset="3000000"/);
  const list = inboxPage({
    viewer,
    entries: [entry],
    notes: [hostile],
    signed: new Set(),
    heldKeys: new Set(),
    filters: { goal: `"><${hostile}` },
  }).text;
  assert.doesNotMatch(list, /<script>/);
  const whole = page(hostile, viewer, html`x`);
  assert.equal(whole.match(/<script/g)?.length, 1, 'only /inbox.js');
  assert.match(whole, /al&quot;ice/);
});

test('the list filters by goal and tool; a goal requiring signatures asks for a key unless one is held', () => {
  const entries = [
    ...pendingEntries('goal-a', { awaitingReview: false, pendingApprovals: [pendingCall()] }),
    ...pendingEntries('goal-b', {
      awaitingReview: false,
      pendingApprovals: [{ ...pendingCall(), callId: 'toolu_2', toolName: 'write_file' }],
    }),
  ];
  const listed = (filters: { goal?: string; tool?: string }, heldKeys = new Set<string>()) =>
    inboxPage({ viewer, entries, notes: [], signed: new Set(['goal-b']), heldKeys, filters }).text;
  assert.deepEqual(
    [...listed({}).matchAll(/data-call="([^"]+)"/g)].map((m) => m[1]),
    ['toolu_1', 'toolu_2'],
  );
  assert.deepEqual(
    [...listed({ goal: 'goal-b' }).matchAll(/data-call="([^"]+)"/g)].map((m) => m[1]),
    ['toolu_2'],
  );
  assert.deepEqual(
    [...listed({ tool: 'run_command' }).matchAll(/data-call="([^"]+)"/g)].map((m) => m[1]),
    ['toolu_1'],
  );
  assert.equal(listed({}).match(/name="signingKey"/g)?.length, 1, 'only the signed goal asks for a key');
  assert.doesNotMatch(listed({}, new Set([`al"ice`])), /name="signingKey"/);
});
