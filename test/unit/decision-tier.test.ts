import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  approvedBeyondMutating,
  decisionCoverage,
  decisionTier,
} from '../../src/workflows/approvals/decision-tier';

/**
 * A decision covers its own tier only (issue 43, item 3; src/workflows/approvals/decision-tier.ts):
 * only an approval of an irreversible call lets its effects beyond the mutating tier through;
 * every other start — auto, ask, a mutating approver, an allow rule — runs it held to its tier.
 */

const decided = (approved: boolean, via = 'signal') => ({
  decision: { approved, approver: 'bob', reason: '', decidedAt: '', via },
});

test('the tier whose approvers decide a call: irreversible for irreversible calls, mutating otherwise', () => {
  assert.equal(decisionTier('irreversible'), 'irreversible');
  assert.equal(decisionTier('mutating'), 'mutating');
  assert.equal(decisionTier('read-only'), 'mutating');
});

test('only an approved irreversible call runs with its effects beyond the mutating tier', () => {
  assert.equal(approvedBeyondMutating({ reversibility: 'irreversible', approval: decided(true) }), true);
  assert.equal(approvedBeyondMutating({ reversibility: 'irreversible', approval: decided(false) }), false);
  assert.equal(approvedBeyondMutating({ reversibility: 'irreversible', approval: {} }), false);
  assert.equal(approvedBeyondMutating({ reversibility: 'irreversible' }), false);
});

test('an approved mutating call, by a human or by a rule, is held to its tier; so is a call nobody approved', () => {
  for (const via of ['signal', 'update', 'rule']) {
    assert.equal(
      approvedBeyondMutating({ reversibility: 'mutating', approval: decided(true, via) }),
      false,
      via,
    );
    assert.equal(
      approvedBeyondMutating({ reversibility: 'read-only', approval: decided(true, via) }),
      false,
      via,
    );
  }
  assert.equal(approvedBeyondMutating({ reversibility: 'mutating' }), false, 'auto: nobody was asked');
  assert.equal(approvedBeyondMutating({ reversibility: 'read-only' }), false);
});

test("the approver reads what the decision covers: a mutating approval sends deletions and git's configuration to the irreversible tier", () => {
  for (const toolName of ['run_command', 'write_file', 'edit_file']) {
    const mutating = decisionCoverage('mutating', toolName);
    assert.match(mutating, /^approving decides this mutating call only: /, toolName);
    for (const held of [
      'a deletion',
      'a replacement',
      "git's configuration or hooks",
      'approver of irreversible calls',
    ])
      assert.ok(mutating.includes(held), `${toolName}: ${held}`);
  }
  for (const toolName of ['run_command', 'create_issue'])
    assert.equal(
      decisionCoverage('irreversible', toolName),
      'approving decides this irreversible call and everything it changes',
    );
});

test('a mutating MCP or user tool is not promised a hold keel cannot make: approving it lets it do all it does', () => {
  for (const toolName of ['github__create_branch', 'deploy_preview']) {
    const coverage = decisionCoverage('mutating', toolName);
    assert.equal(
      coverage,
      `approving lets this call do all it does: ${toolName} is not a tool whose changes keel sees before they happen, so none of them waits for another approver`,
    );
    assert.ok(!coverage.includes('is held'), toolName);
  }
});
