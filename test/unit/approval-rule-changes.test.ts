import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { judgeDecision, type DecisionAuthority } from '../../src/workflows/goal/tool-calls/approval-decision';
import { approversSchema, type ApprovalSignatures } from '../../src/workflows/approvals/approval-authority';
import { judgeRuleAddition, judgeRuleRevocation } from '../../src/workflows/approvals/rule-changes';
import { addRule, emptyRules } from '../../src/workflows/approvals/rule-book';
import { signedDecisionRule } from '../../src/workflows/approvals/approval-rule';
import { rawPublicKey, signDecision, signRuleChange } from '../../src/client/approval-keys';
import { readApprovalPolicyFile } from '../../src/activities/approval-policy-file';
import { ruleLines, untilTime } from '../../src/cli/approval-commands';
import type { ToolCallRecord } from '../../src/workflows/goal/lifecycle/state';
import { nodeEd25519Verify } from '../support/node-ed25519';
import { tempDirectory } from '../support/temp-directory';
import { parseGoalInput } from '../../src/workflows/goal/lifecycle/input';

const NOW = Date.parse('2030-01-01T00:00:00Z');

function signedAuthority(): { pair: { privateKey: KeyObject }; signatures: ApprovalSignatures } {
  const pair = generateKeyPairSync('ed25519');
  return { pair, signatures: { scheme: 'ed25519', keys: { alice: rawPublicKey(pair.publicKey) } } };
}

const open = { workflowId: 'goal-1', approvers: approversSchema.parse({}), verify: undefined, nowMs: NOW };
const strict = {
  ...open,
  approvers: approversSchema.parse({ mutating: ['*'], irreversible: ['alice'] }),
};

const waiting = (
  command: string,
  reversibility: ToolCallRecord['reversibility'] = 'mutating',
): ToolCallRecord => ({
  callId: 'c1',
  toolName: 'run_command',
  input: { command },
  reversibility,
  summary: `run_command: ${command}`,
  status: 'awaiting-approval',
  approval: { requestedAt: '2030-01-01T00:00:00.000Z', deadlineMs: NOW + 1 },
});

test('adding a rule: its maker must be allowed the tiers it covers; a forbid rule needs either tier', () => {
  const allowIrreversible = { effect: 'allow', tool: 'run_command', pattern: 'deploy*', irreversible: true };
  const bob = judgeRuleAddition({ ...allowIrreversible, approver: 'bob' }, strict);
  assert.equal(bob.ok, false);
  assert.match(bob.ok ? '' : bob.message, /bob may not decide the calls this rule would decide/);
  assert.equal(judgeRuleAddition({ ...allowIrreversible, approver: 'alice' }, strict).ok, true);
  assert.equal(
    judgeRuleAddition({ ...allowIrreversible, irreversible: false, approver: 'bob' }, strict).ok,
    true,
  );
  assert.equal(
    judgeRuleAddition({ effect: 'forbid', tool: 'run_command', pattern: 'rm *', approver: 'bob' }, strict).ok,
    true,
  );
  const late = judgeRuleAddition(
    { effect: 'allow', tool: 'x', until: '2029-12-31T23:59:59Z', approver: 'alice' },
    open,
  );
  assert.match(late.ok ? '' : late.message, /has already passed/);
  const malformed = judgeRuleAddition({ effect: 'maybe', tool: 'x', approver: 'alice' }, open);
  assert.match(malformed.ok ? '' : malformed.message, /^malformed rule: effect/);
});

test('revoking: unknown and revoked ids are refused; lifting a forbid rule needs someone who may decide both tiers', () => {
  const added = addRule(emptyRules(), {
    tool: 'run_command',
    pattern: 'rm *',
    irreversible: false,
    effect: 'forbid',
    source: 'added',
    by: 'alice',
    reason: '',
    createdAt: '',
  });
  assert.ok(added.ok);
  const state = added.state;
  assert.match(
    String(
      (judgeRuleRevocation({ ruleId: 'rule-9', approver: 'alice' }, state, strict) as { message?: string })
        .message,
    ),
    /no rule rule-9/,
  );
  const bob = judgeRuleRevocation({ ruleId: 'rule-1', approver: 'bob' }, state, strict);
  assert.match(bob.ok ? '' : bob.message, /bob may not revoke rule-1/);
  assert.equal(judgeRuleRevocation({ ruleId: 'rule-1', approver: 'alice' }, state, strict).ok, true);
});

test('signed goals: a rule change is accepted only with a signature over exactly it, for this goal and approver', () => {
  const { pair, signatures } = signedAuthority();
  const authority = { ...open, signatures, verify: nodeEd25519Verify };
  const rule = { effect: 'allow' as const, tool: 'run_command', pattern: 'npm test*', irreversible: false };
  const signature = signRuleChange(pair.privateKey, {
    workflowId: 'goal-1',
    change: 'add',
    rule,
    approver: 'alice',
  });
  assert.equal(judgeRuleAddition({ ...rule, approver: 'alice', signature }, authority).ok, true);
  const unsigned = judgeRuleAddition({ ...rule, approver: 'alice' }, authority);
  assert.match(unsigned.ok ? '' : unsigned.message, /requires a signed rule/);
  for (const changed of [
    { pattern: 'npm *' },
    { irreversible: true },
    { effect: 'forbid' },
    { tool: 'write_file' },
  ]) {
    const verdict = judgeRuleAddition({ ...rule, ...changed, approver: 'alice', signature }, authority);
    assert.equal(verdict.ok, false, JSON.stringify(changed));
  }
  const otherGoal = judgeRuleAddition(
    { ...rule, approver: 'alice', signature },
    { ...authority, workflowId: 'goal-2' },
  );
  assert.equal(otherGoal.ok, false, 'bound to one goal');
  const added = addRule(emptyRules(), { ...rule, source: 'added', by: 'alice', reason: '', createdAt: '' });
  assert.ok(added.ok);
  const revokeSignature = signRuleChange(pair.privateKey, {
    workflowId: 'goal-1',
    change: 'revoke',
    ruleId: 'rule-1',
    approver: 'alice',
  });
  assert.equal(
    judgeRuleRevocation(
      { ruleId: 'rule-1', approver: 'alice', signature: revokeSignature },
      added.state,
      authority,
    ).ok,
    true,
  );
  assert.equal(
    judgeRuleRevocation({ ruleId: 'rule-1', approver: 'alice', signature }, added.state, authority).ok,
    false,
  );
});

test('a decision with a rule: defaults filled from the call, refused when it misses its call, and its signature covers the rule', () => {
  const decide = (raw: object, authority: DecisionAuthority, call = waiting('npm test --watch')) =>
    judgeDecision(raw, 'from-payload', [call], { ...authority, nowMs: NOW });
  const exact = decide({ callId: 'c1', approved: true, approver: 'ann', rule: {} }, open);
  assert.ok(exact.ok);
  assert.deepEqual(exact.rule, { tool: 'run_command', pattern: 'npm test --watch', irreversible: false });
  const typo = decide(
    { callId: 'c1', approved: true, approver: 'ann', rule: { pattern: 'npm tset*' } },
    open,
  );
  assert.equal(typo.ok ? 'accepted' : typo.reason, 'rule-refused');
  const chained = decide(
    { callId: 'c1', approved: true, approver: 'ann', rule: {} },
    open,
    waiting('npm test && rm x'),
  );
  assert.match(
    chained.ok ? '' : chained.message,
    /no rule can approve this command for later calls: it chains several commands/,
  );
  const expired = decide(
    {
      callId: 'c1',
      approved: true,
      approver: 'ann',
      rule: { pattern: 'npm*', until: '2029-01-01T00:00:00Z' },
    },
    open,
  );
  assert.match(expired.ok ? '' : expired.message, /has already passed/);
  const irreversible = decide(
    { callId: 'c1', approved: true, approver: 'bob', rule: { pattern: 'deploy*', irreversible: true } },
    strict,
    waiting('deploy prod', 'irreversible'),
  );
  assert.equal(irreversible.ok ? 'accepted' : irreversible.reason, 'unauthorized-approver');

  const { pair, signatures } = signedAuthority();
  const authority = { ...open, signatures, verify: nodeEd25519Verify };
  const rule = { pattern: 'npm test*' };
  const signature = signDecision(pair.privateKey, {
    workflowId: 'goal-1',
    callId: 'c1',
    approved: true,
    approver: 'alice',
    rule: signedDecisionRule(true, rule),
  });
  assert.ok(decide({ callId: 'c1', approved: true, approver: 'alice', rule, signature }, authority).ok);
  const widened = decide(
    { callId: 'c1', approved: true, approver: 'alice', rule: { pattern: '*' }, signature },
    authority,
  );
  assert.equal(
    widened.ok ? 'accepted' : widened.reason,
    'bad-signature',
    'a signature for one rule does not carry another',
  );
  const dropped = decide({ callId: 'c1', approved: true, approver: 'alice', signature }, authority);
  assert.equal(dropped.ok ? 'accepted' : dropped.reason, 'bad-signature', 'nor a decision without the rule');
});

test('a worker policy file: JSON with rules, or one line naming the file and what is wrong', () => {
  const directory = tempDirectory('keel-policy-');
  const file = (name: string, text: string) => {
    const full = path.join(directory, name);
    writeFileSync(full, text);
    return full;
  };
  const good = file(
    'good.json',
    JSON.stringify({ rules: [{ effect: 'allow', tool: 'run_command', pattern: 'npm test*' }] }),
  );
  assert.deepEqual(readApprovalPolicyFile(good), [
    { effect: 'allow', tool: 'run_command', pattern: 'npm test*', irreversible: false },
  ]);
  assert.throws(
    () => readApprovalPolicyFile(file('bad.json', '{ rules: [')),
    /approval rules file .*bad\.json is not JSON/,
  );
  assert.throws(
    () =>
      readApprovalPolicyFile(
        file('shape.json', JSON.stringify({ rules: [{ effect: 'allow', tool: 'a b' }] })),
      ),
    /shape\.json: rules\.0\.tool: a tool name has no blanks or colons/,
  );
  assert.throws(() => readApprovalPolicyFile(path.join(directory, 'none.json')), /cannot be read \(ENOENT\)/);
});

test('keel rules prints each rule with its maker, source and state; --until takes a duration or an ISO time', () => {
  const lines = ruleLines(
    [
      {
        id: 'rule-1',
        tool: 'run_command',
        pattern: 'npm test*',
        irreversible: false,
        effect: 'allow',
        source: 'decision',
        by: 'ann',
        reason: 'tests are fine',
        createdAt: '',
      },
      {
        id: 'rule-2',
        tool: 'write_file',
        pattern: 'src/**',
        irreversible: false,
        until: '2030-01-01T00:00:00.000Z',
        effect: 'allow',
        source: 'added',
        by: 'ann',
        reason: '',
        createdAt: '',
      },
    ],
    NOW,
  );
  assert.deepEqual(lines, [
    'rule-1  allow run_command: npm test*  by ann (decision)  in force — tests are fine',
    'rule-2  allow write_file: src/** (until 2030-01-01T00:00:00.000Z)  by ann (added)  expired',
  ]);
  assert.equal(untilTime('2h', NOW), '2030-01-01T02:00:00.000Z');
  assert.equal(untilTime('2030-02-01T00:00:00Z', NOW), '2030-02-01T00:00:00.000Z');
  assert.throws(() => untilTime('tomorrow', NOW), /--until wants a duration/);
});

test('goal input: rules are validated with the rest, and a goal that requires signed decisions takes none', () => {
  const { signatures } = signedAuthority();
  const rule = { effect: 'allow', tool: 'run_command', pattern: 'npm test*' };
  assert.equal(parseGoalInput({ goal: 'g', workspace: '/w', approvalRules: [rule] }).ok, true);
  const signed = parseGoalInput({
    goal: 'g',
    workspace: '/w',
    approvalRules: [rule],
    approvalSignatures: signatures,
  });
  assert.deepEqual(signed, {
    ok: false,
    message:
      'invalid goal input: approvalRules: a goal that requires signed decisions takes no rules from its input: add signed ones with keel rules <goal> --allow … --sign-key',
  });
  const bad = parseGoalInput({ goal: 'g', workspace: '/w', approvalRules: [{ ...rule, effect: 'maybe' }] });
  assert.match(bad.ok ? '' : bad.message, /^invalid goal input: approvalRules\.0\.effect: /);
});
