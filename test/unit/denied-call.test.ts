import { test } from 'node:test';
import assert from 'node:assert/strict';
import { deniedCallContent, HELD_REPORT_LABEL } from '../../src/workflows/goal/tool-calls/denied-call';
import type { ApprovalDecision } from '../../src/workflows/goal/lifecycle/state';

/**
 * Issue 44 item 2 in the goal's bookkeeping: a denied call is no failure of its tool, and a
 * denied held call's result leads with the denial, never with the layer's "Exit code 0".
 */

const ann: ApprovalDecision = {
  approved: false,
  approver: 'ann',
  reason: 'not today',
  decidedAt: '',
  via: 'signal',
};
const timeout: ApprovalDecision = {
  approved: false,
  approver: 'keel',
  reason: 'approval timed out',
  decidedAt: '',
  via: 'timeout',
};
const heldReport =
  'Exit code 0 after 0.1 s.\nIts changes are held, not applied: a call no human approved may not make them.\n- deletes notes.txt, which existed before the call';
const heldCall = {
  toolName: 'run_command',
  reversibility: 'mutating' as const,
  escalation: {
    reason: 'its changes go beyond a mutating call',
    content: heldReport,
    changes: { created: [], modified: [], deleted: ['notes.txt'] },
  },
};

test('a denied held call leads with the denial; the layer report follows, labelled, after it', () => {
  const content = deniedCallContent(ann, heldCall, []);
  assert.match(
    content,
    /^Not applied: denied by ann\. Reason: not today\. The command ran on a copy-on-write layer only\. Its changes were discarded; nothing of it reached the workspace\./,
  );
  const label = content.indexOf(HELD_REPORT_LABEL);
  assert.ok(label > 0, content);
  assert.equal(
    content.indexOf('Exit code 0'),
    label + HELD_REPORT_LABEL.length + 1,
    'the report only under its label',
  );
  assert.ok(content.endsWith(`\n\n${HELD_REPORT_LABEL}\n${heldReport}`));
  assert.ok(content.indexOf('Candidate next actions:') < label, 'the next actions belong to the denial');
  const timedOut = deniedCallContent(timeout, heldCall, []);
  assert.match(
    timedOut,
    /^Not applied: approval timed out\. No human decided in time\. The command ran on a copy-on-write layer only\./,
  );
});

test('a denied call that held nothing never ran: "Not run", and no layer report', () => {
  const waiting = {
    toolName: 'run_command',
    reversibility: 'irreversible' as const,
    escalation: { reason: 'network', content: 'waits' },
  };
  for (const call of [waiting, { toolName: 'run_command', reversibility: 'irreversible' as const }]) {
    const content = deniedCallContent(ann, call, []);
    assert.match(content, /^Not run: denied by ann\. Reason: not today\n/);
    assert.doesNotMatch(content, /copy-on-write|For context only|Not applied/);
    assert.ok(!content.includes('\nwaits'), 'the escalation text is not the result');
  }
});

test('a remembered denial of a held call says its changes were not applied, too', () => {
  const remembered: ApprovalDecision = {
    ...ann,
    approver: 'keel',
    via: 'remembered-denial',
    reason: 'a human (carol) denied this intent earlier.',
  };
  assert.match(
    deniedCallContent(remembered, heldCall, []),
    /^Not applied: a human \(carol\) denied this intent earlier\. The command ran on a copy-on-write layer only\./,
  );
  assert.match(
    deniedCallContent(remembered, { ...heldCall, escalation: undefined }, []),
    /^Not run: a human \(carol\)/,
  );
});
