import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ApprovalRule } from '../../src/workflows/approvals/approval-rule';
import { decisionByRule, namedRule } from '../../src/workflows/approvals/rule-decisions';

/**
 * The rules of a decision a rule made (issue 27: mutation testing;
 * src/workflows/approvals/rule-decisions.ts): an allow rule approves and a forbid rule refuses, at
 * once, by the rule's maker, with the whole reason text (a forbid rule's maker's own reason added
 * only when it is not blank, trimmed), via `rule`, naming the rule's id, text and source; and how
 * every view names a rule.
 */

const allow: ApprovalRule = {
  id: 'rule-3',
  effect: 'allow',
  tool: 'run_command',
  pattern: 'npm test*',
  irreversible: false,
  source: 'decision',
  by: 'alice',
  reason: '  tests are safe  ',
  createdAt: '2030-01-01T00:00:00Z',
};
const forbid: ApprovalRule = {
  ...allow,
  id: 'rule-4',
  effect: 'forbid',
  pattern: 'rm *',
  irreversible: true,
  until: '2030-02-01T00:00:00Z',
  source: 'goal-input',
  by: 'bob',
  reason: '  never delete  ',
};

test('a rule is named by its id and its text: `rule-3 (allow run_command: npm test*)`', () => {
  assert.equal(namedRule(allow), 'rule-3 (allow run_command: npm test*)');
  assert.equal(
    namedRule(forbid),
    'rule-4 (forbid run_command: rm * (irreversible calls too, until 2030-02-01T00:00:00Z))',
  );
});

test('an allow rule approves at once, by its maker, naming the rule; its reason is not quoted', () => {
  assert.deepEqual(decisionByRule({ effect: 'allow', rule: allow }, '2030-01-01T00:05:00Z'), {
    approved: true,
    approver: 'alice',
    reason: 'approved at once by rule-3 (allow run_command: npm test*), made by alice',
    decidedAt: '2030-01-01T00:05:00Z',
    via: 'rule',
    rule: { id: 'rule-3', text: 'allow run_command: npm test*', source: 'decision' },
  });
});

test("a forbid rule refuses at once, by its maker, saying nobody is asked, with the maker's reason trimmed", () => {
  assert.deepEqual(decisionByRule({ effect: 'forbid', rule: forbid }, '2030-01-01T00:06:00Z'), {
    approved: false,
    approver: 'bob',
    reason:
      'refused at once by rule-4 (forbid run_command: rm * (irreversible calls too, until 2030-02-01T00:00:00Z)), set by bob: every call it covers is refused without asking anyone. Their reason: never delete',
    decidedAt: '2030-01-01T00:06:00Z',
    via: 'rule',
    rule: {
      id: 'rule-4',
      text: 'forbid run_command: rm * (irreversible calls too, until 2030-02-01T00:00:00Z)',
      source: 'goal-input',
    },
  });
});

test('a forbid rule with an empty or blank reason adds no "Their reason"', () => {
  for (const reason of ['', '  \t ']) {
    assert.equal(
      decisionByRule(
        { effect: 'forbid', rule: { ...forbid, reason, irreversible: false, until: undefined } },
        'T',
      ).reason,
      'refused at once by rule-4 (forbid run_command: rm *), set by bob: every call it covers is refused without asking anyone.',
      JSON.stringify(reason),
    );
  }
});

test("the verdict's effect decides, and the rule's text names the rule's own effect", () => {
  const decision = decisionByRule({ effect: 'forbid', rule: allow }, 'T');
  assert.equal(decision.approved, false);
  assert.equal(decision.rule.text, 'allow run_command: npm test*');
  assert.equal(decisionByRule({ effect: 'allow', rule: forbid }, 'T').approved, true);
});
