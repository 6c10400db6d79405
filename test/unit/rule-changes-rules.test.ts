import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { approversSchema } from '../../src/workflows/approvals/approval-authority';
import {
  judgeRuleAddition,
  judgeRuleRevocation,
  type RuleChangeAuthority,
} from '../../src/workflows/approvals/rule-changes';
import { addRule, emptyRules, revokeRule } from '../../src/workflows/approvals/rule-book';
import type { ApprovalRulesState } from '../../src/workflows/approvals/approval-rule';
import { rawPublicKey, signRuleChange } from '../../src/client/approval-keys';
import { nodeEd25519Verify } from '../support/node-ed25519';

/**
 * Rule changes made on their own (`keel rules`; issue 27: mutation testing;
 * src/workflows/approvals/rule-changes.ts): each refusal's whole message (a malformed change
 * names its field, or none for the change as a whole), a rule whose `until` is now already
 * passed, who may add each kind of rule and revoke it — one tier or both, set by set — and the
 * whole verdict an accepted change gives (its defaults, and whether it was signed).
 */

const NOW = Date.parse('2030-01-01T00:00:00Z');

/** mutating: carol and dave; irreversible: irene and dave; erin neither. */
const authority: RuleChangeAuthority = {
  workflowId: 'goal-1',
  approvers: approversSchema.parse({ mutating: ['carol', 'dave'], irreversible: ['irene', 'dave'] }),
  verify: undefined,
  nowMs: NOW,
};

const message = (verdict: { ok: boolean; message?: string }) => (verdict.ok ? 'accepted' : verdict.message);

const addition = (fields: Record<string, unknown>) =>
  message(judgeRuleAddition({ tool: 'run_command', pattern: 'npm *', ...fields }, authority));

function rulesWith(effect: 'allow' | 'forbid'): ApprovalRulesState {
  const added = addRule(emptyRules(), {
    tool: 'run_command',
    pattern: 'rm *',
    irreversible: false,
    effect,
    source: 'added',
    by: 'dave',
    reason: '',
    createdAt: '',
  });
  assert.ok(added.ok);
  return added.state;
}

const revocation = (effect: 'allow' | 'forbid', approver: string) =>
  message(judgeRuleRevocation({ ruleId: 'rule-1', approver }, rulesWith(effect), authority));

test('adding: a malformed rule is refused naming its field, or none when the change as a whole is wrong', () => {
  assert.equal(addition({ effect: 'allow' }), 'malformed rule: approver: approver is required');
  assert.equal(
    addition({ effect: 'allow', approver: '   ' }),
    'malformed rule: approver: approver is required',
  );
  assert.equal(addition({ effect: 'allow', approver: 7 }), 'malformed rule: approver: approver is required');
  assert.equal(
    addition({ effect: 'allow', approver: 'dave', colour: 'red' }),
    'malformed rule: Unrecognized key: "colour"',
  );
  assert.equal(
    message(judgeRuleAddition(null, authority)),
    'malformed rule: Invalid input: expected object, received null',
  );
});

test('adding: a rule until now has already passed; one until a second from now is accepted', () => {
  const now = new Date(NOW).toISOString();
  assert.equal(
    addition({ effect: 'allow', approver: 'dave', until: now }),
    `until ${now} has already passed`,
  );
  assert.equal(
    addition({ effect: 'allow', approver: 'dave', until: new Date(NOW + 1000).toISOString() }),
    'accepted',
  );
});

test('adding an allow rule takes the mutating tier, and the irreversible tier too when it covers irreversible calls', () => {
  const refused = (approver: string) => `${approver} may not decide the calls this rule would decide`;
  assert.equal(addition({ effect: 'allow', approver: 'carol' }), 'accepted');
  assert.equal(addition({ effect: 'allow', approver: 'irene' }), refused('irene'));
  assert.equal(addition({ effect: 'allow', approver: 'erin' }), refused('erin'));
  assert.equal(addition({ effect: 'allow', approver: 'carol', irreversible: true }), refused('carol'));
  assert.equal(addition({ effect: 'allow', approver: 'irene', irreversible: true }), refused('irene'));
  assert.equal(addition({ effect: 'allow', approver: 'dave', irreversible: true }), 'accepted');
});

test('adding a forbid rule takes either tier (it only refuses); someone with neither is refused', () => {
  assert.equal(addition({ effect: 'forbid', approver: 'carol' }), 'accepted');
  assert.equal(addition({ effect: 'forbid', approver: 'irene' }), 'accepted');
  assert.equal(addition({ effect: 'forbid', approver: 'irene', irreversible: true }), 'accepted');
  assert.equal(
    addition({ effect: 'forbid', approver: 'erin' }),
    'erin may not decide the calls this rule would decide',
  );
});

test('an accepted addition, whole: its scope with defaults, effect, maker, an empty reason by default, unsigned', () => {
  assert.deepEqual(
    judgeRuleAddition({ effect: 'forbid', tool: 'write_file', approver: ' carol ' }, authority),
    {
      ok: true,
      scope: { tool: 'write_file', pattern: '*', irreversible: false },
      effect: 'forbid',
      by: 'carol',
      reason: '',
      source: 'added',
      signed: false,
    },
  );
});

test('revoking: a malformed revocation names its field; a revoked rule names who revoked it', () => {
  const rules = rulesWith('allow');
  const revoke = (raw: unknown) => message(judgeRuleRevocation(raw, rules, authority));
  assert.equal(revoke({ approver: 'dave' }), 'malformed revocation: ruleId: ruleId is required');
  assert.equal(revoke({ ruleId: '', approver: 'dave' }), 'malformed revocation: ruleId: ruleId is required');
  assert.equal(revoke({ ruleId: 'rule-1' }), 'malformed revocation: approver: approver is required');
  assert.equal(
    revoke({ ruleId: 'rule-1', approver: ' ' }),
    'malformed revocation: approver: approver is required',
  );
  const revoked = revokeRule(rules, { id: 'rule-1', by: 'irene', reason: '', at: '' });
  assert.ok(revoked.ok);
  assert.equal(
    message(judgeRuleRevocation({ ruleId: 'rule-1', approver: 'dave' }, revoked.state, authority)),
    'rule-1 was already revoked by irene',
  );
  assert.equal(
    message(judgeRuleRevocation({ ruleId: 'rule-1', approver: 'dave' }, undefined, authority)),
    'this goal has no rule rule-1',
  );
});

test('revoking an allow rule takes either tier; a forbid rule takes both (its calls will be asked again)', () => {
  assert.equal(revocation('allow', 'carol'), 'accepted');
  assert.equal(revocation('allow', 'irene'), 'accepted');
  assert.equal(revocation('allow', 'erin'), 'erin may not revoke rule-1');
  assert.equal(revocation('forbid', 'carol'), 'carol may not revoke rule-1');
  assert.equal(revocation('forbid', 'irene'), 'irene may not revoke rule-1');
  assert.equal(revocation('forbid', 'dave'), 'accepted');
});

test('an accepted revocation, whole: the rule, who revoked it and why (empty by default)', () => {
  const rules = rulesWith('allow');
  assert.deepEqual(judgeRuleRevocation({ ruleId: 'rule-1', approver: 'carol' }, rules, authority), {
    ok: true,
    ruleId: 'rule-1',
    by: 'carol',
    reason: '',
  });
  assert.deepEqual(
    judgeRuleRevocation({ ruleId: 'rule-1', approver: 'carol', reason: 'done' }, rules, authority),
    { ok: true, ruleId: 'rule-1', by: 'carol', reason: 'done' },
  );
});

test('signed goals: an unsigned revocation is refused as "a signed rule change"; an addition says it was signed', () => {
  const pair = generateKeyPairSync('ed25519');
  const signed: RuleChangeAuthority = {
    ...authority,
    approvers: approversSchema.parse({}),
    signatures: { scheme: 'ed25519', keys: { alice: rawPublicKey(pair.publicKey) } },
    verify: nodeEd25519Verify,
  };
  assert.equal(
    message(judgeRuleRevocation({ ruleId: 'rule-1', approver: 'alice' }, rulesWith('allow'), signed)),
    'this goal requires a signed rule change',
  );
  assert.equal(
    message(judgeRuleAddition({ effect: 'allow', tool: 'x', approver: 'alice' }, signed)),
    'this goal requires a signed rule',
  );
  const rule = { effect: 'allow' as const, tool: 'x', pattern: '*', irreversible: false };
  const signature = signRuleChange(pair.privateKey, {
    workflowId: 'goal-1',
    change: 'add',
    rule,
    approver: 'alice',
  });
  assert.deepEqual(judgeRuleAddition({ ...rule, approver: 'alice', signature }, signed), {
    ok: true,
    scope: { tool: 'x', pattern: '*', irreversible: false },
    effect: 'allow',
    by: 'alice',
    reason: '',
    source: 'added',
    signed: true,
  });
});
