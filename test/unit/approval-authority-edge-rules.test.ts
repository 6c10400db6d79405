import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  canonicalDecisionText,
  canonicalRuleChangeText,
} from '../../src/workflows/approvals/approval-authority';

/**
 * The exact texts a rule's signer signs (issue 27: the mutation run's survivors), beside
 * approval-authority-rules.test.ts. A signer outside keel builds these bytes itself
 * (docs/approvals-and-security.md), so they are pinned as known answers, not only as
 * "keel verifies what keel signed".
 */

const rule = { effect: 'allow', tool: 'run_command', pattern: 'npm test*', irreversible: false } as const;

test('a rule change is signed as ["keel-rule-v1", workflowId, change, rule or id, approver]; no end date is ""', () => {
  assert.equal(
    canonicalRuleChangeText({ workflowId: 'goal-1', change: 'add', rule, approver: 'ann' }),
    '["keel-rule-v1","goal-1","add","rule:[\\"allow\\",\\"run_command\\",\\"npm test*\\",false,\\"\\"]","ann"]',
  );
  assert.equal(
    canonicalRuleChangeText({
      workflowId: 'goal-1',
      change: 'add',
      rule: { ...rule, effect: 'forbid', irreversible: true, until: '2026-12-01T00:00:00.000Z' },
      approver: 'ann',
    }),
    '["keel-rule-v1","goal-1","add","rule:[\\"forbid\\",\\"run_command\\",\\"npm test*\\",true,\\"2026-12-01T00:00:00.000Z\\"]","ann"]',
  );
  assert.equal(
    canonicalRuleChangeText({ workflowId: 'goal-1', change: 'revoke', ruleId: 'rule-3', approver: 'ann' }),
    '["keel-rule-v1","goal-1","revoke","rule-3","ann"]',
  );
});

test('a rule given with a decision is its last element, in the same form', () => {
  assert.equal(
    canonicalDecisionText({ workflowId: 'goal-1', callId: 'toolu_1', approved: true, approver: 'ann', rule }),
    '["keel-approval-v1","goal-1","toolu_1","approve","ann","rule:[\\"allow\\",\\"run_command\\",\\"npm test*\\",false,\\"\\"]"]',
  );
});
