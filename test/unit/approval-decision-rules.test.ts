import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import {
  DecisionRefusalReason,
  judgeDecision,
  type DecisionAuthority,
} from '../../src/workflows/goal/tool-calls/approval-decision';
import { approversSchema, type SignedDecision } from '../../src/workflows/approvals/approval-authority';
import { signedDecisionRule } from '../../src/workflows/approvals/approval-rule';
import { rawPublicKey, signDecision } from '../../src/client/approval-keys';
import type { ToolCallRecord } from '../../src/workflows/goal/lifecycle/state';
import { nodeEd25519Verify } from '../support/node-ed25519';

/**
 * The approval decision's rules (issue 27: mutation testing; src/workflows/goal/tool-calls/approval-decision.ts):
 * which approve/deny message may settle a waiting call, and the whole verdict it gets. Written as
 * an attacker would try it: a decision for an unknown, finished or already-decided call, an
 * approver outside a tier's list (or named `__proto__`), a signature moved to another call,
 * verdict or goal, doNotAskAgain on an approval, a rule that misses its call, has expired, or
 * would let a mutating-tier approver allow irreversible calls. Every refusal names the call and
 * approver it can, and says why in whole words.
 */

const NOW = Date.parse('2030-01-01T00:00:00.000Z');

const waiting = (
  callId: string,
  command: string,
  reversibility: ToolCallRecord['reversibility'] = 'mutating',
): ToolCallRecord => ({
  callId,
  toolName: 'run_command',
  input: { command },
  reversibility,
  summary: `run_command: ${command}`,
  status: 'awaiting-approval',
  approval: { requestedAt: '2030-01-01T00:00:00.000Z', deadlineMs: NOW + 60_000 },
});

/** Two waiting calls, the irreversible one second, so a lookup that takes the first call fails. */
const turn = (): ToolCallRecord[] => [
  waiting('m1', 'npm test'),
  waiting('x1', 'deploy prod', 'irreversible'),
];

const open: DecisionAuthority = {
  workflowId: 'goal-1',
  approvers: approversSchema.parse({}),
  verify: undefined,
};
/** alice may decide both tiers, bob only mutating calls. */
const strict: DecisionAuthority = {
  ...open,
  approvers: approversSchema.parse({ mutating: ['alice', 'bob'], irreversible: ['alice'] }),
};

const refusal = (reason: string, message: string, named: { callId?: string; approver?: string } = {}) => ({
  ok: false,
  reason,
  message,
  ...named,
});

const accepted = (
  call: ToolCallRecord,
  approved: boolean,
  approver: string,
  extra: { reason?: string; doNotAskAgain?: boolean; rule?: object } = {},
) => ({
  ok: true,
  call,
  approved,
  approver,
  reason: extra.reason ?? '',
  doNotAskAgain: extra.doNotAskAgain ?? false,
  ...(extra.rule === undefined ? {} : { rule: extra.rule }),
});

test('the refusal reasons, each by its exact name', () => {
  assert.deepEqual(DecisionRefusalReason, {
    MalformedPayload: 'malformed-payload',
    UnknownCall: 'unknown-call',
    AlreadyDecided: 'already-decided',
    UnauthorizedApprover: 'unauthorized-approver',
    MissingSignature: 'missing-signature',
    BadSignature: 'bad-signature',
    DoNotAskAgainOnApproval: 'do-not-ask-again-on-approval',
    RuleRefused: 'rule-refused',
    PlainTextDecision: 'plain-text-decision',
    SignatureForAnotherStage: 'signature-for-another-stage',
    MissingChangesDigest: 'missing-changes-digest',
    AnotherAsk: 'another-ask',
    ChangesDiffer: 'changes-differ',
    UnlistedChanges: 'unlisted-changes',
  });
});

test('a signal decides by its name: approve accepts as approved, deny as denied, with the reason given', () => {
  const calls = turn();
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'ann', reason: 'ship it' }, true, calls, open),
    accepted(calls[1] as ToolCallRecord, true, 'ann', { reason: 'ship it' }),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'm1', approver: 'ann' }, false, calls, open),
    accepted(calls[0] as ToolCallRecord, false, 'ann'),
  );
});

test('an Update decides by the approved field inside it: true approves, false denies', () => {
  const calls = turn();
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'ann', approved: true }, 'from-payload', calls, open),
    accepted(calls[1] as ToolCallRecord, true, 'ann'),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'ann', approved: false }, 'from-payload', calls, open),
    accepted(calls[1] as ToolCallRecord, false, 'ann'),
  );
});

test('a signal cannot carry approved (its name decides), and an Update must', () => {
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'ann', approved: false }, true, turn(), open),
    refusal('malformed-payload', 'malformed decision: Unrecognized key: "approved"', {
      callId: 'x1',
      approver: 'ann',
    }),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'ann' }, 'from-payload', turn(), open),
    refusal(
      'malformed-payload',
      'malformed decision: approved: Invalid input: expected boolean, received undefined',
      {
        callId: 'x1',
        approver: 'ann',
      },
    ),
  );
});

test('a malformed payload is refused with its first problem, the field named when there is one', () => {
  for (const [raw, received] of [
    [undefined, 'undefined'],
    [null, 'null'],
    ['x1', 'string'],
    [5, 'number'],
    [[], 'array'],
  ] as const) {
    assert.deepEqual(
      judgeDecision(raw, true, turn(), open),
      refusal(
        'malformed-payload',
        `malformed decision: Invalid input: expected object, received ${received}`,
      ),
      String(received),
    );
  }
  assert.deepEqual(
    judgeDecision({}, true, turn(), open),
    refusal('malformed-payload', 'malformed decision: callId: callId is required'),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'ann', rule: { tool: 'a b' } }, true, turn(), open),
    refusal('malformed-payload', 'malformed decision: rule.tool: a tool name has no blanks or colons', {
      callId: 'x1',
      approver: 'ann',
    }),
  );
});

test('a malformed payload names its call id and approver only when they are non-empty strings, cut to 200 characters', () => {
  assert.deepEqual(
    judgeDecision({ callId: 'x1' }, true, turn(), open),
    refusal('malformed-payload', 'malformed decision: approver: approver is required', { callId: 'x1' }),
  );
  assert.deepEqual(
    judgeDecision({ callId: 7, approver: 'ann' }, true, turn(), open),
    refusal('malformed-payload', 'malformed decision: callId: callId is required', { approver: 'ann' }),
  );
  assert.deepEqual(
    judgeDecision({ callId: '', approver: 7 }, true, turn(), open),
    refusal('malformed-payload', 'malformed decision: callId: callId is required'),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: '' }, true, turn(), open),
    refusal('malformed-payload', 'malformed decision: approver: approver is required', { callId: 'x1' }),
  );
  const long = 'c'.repeat(300);
  const longName = 'a'.repeat(201);
  assert.deepEqual(
    judgeDecision({ callId: long, approver: longName, extra: true }, true, turn(), open),
    refusal('malformed-payload', 'malformed decision: Unrecognized key: "extra"', {
      callId: 'c'.repeat(200),
      approver: 'a'.repeat(200),
    }),
  );
});

test('doNotAskAgain on an approval is refused in words (signal or Update); on a denial it is carried', () => {
  const message = 'doNotAskAgain applies to denials only: deny with it, or approve without it';
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'ann', doNotAskAgain: true }, true, turn(), open),
    refusal('do-not-ask-again-on-approval', message, { callId: 'x1', approver: 'ann' }),
  );
  assert.deepEqual(
    judgeDecision(
      { callId: 'x1', approver: 'ann', approved: true, doNotAskAgain: true },
      'from-payload',
      turn(),
      open,
    ),
    refusal('do-not-ask-again-on-approval', message, { callId: 'x1', approver: 'ann' }),
  );
  // Refused before the call is looked up: the same refusal for a call that does not exist.
  assert.deepEqual(
    judgeDecision({ callId: 'nope', approver: 'ann', doNotAskAgain: true }, true, turn(), open),
    refusal('do-not-ask-again-on-approval', message, { callId: 'nope', approver: 'ann' }),
  );
  const calls = turn();
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'ann', doNotAskAgain: true }, false, calls, open),
    accepted(calls[1] as ToolCallRecord, false, 'ann', { doNotAskAgain: true }),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'ann', doNotAskAgain: false }, true, calls, open),
    accepted(calls[1] as ToolCallRecord, true, 'ann'),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'ann', doNotAskAgain: false }, false, calls, open),
    accepted(calls[1] as ToolCallRecord, false, 'ann'),
  );
});

test('a call id the turn does not hold, or no turn at all, is refused as unknown', () => {
  const message = 'no pending approval with call id zz';
  assert.deepEqual(
    judgeDecision({ callId: 'zz', approver: 'ann' }, true, turn(), open),
    refusal('unknown-call', message, { callId: 'zz', approver: 'ann' }),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'zz', approver: 'ann' }, true, undefined, open),
    refusal('unknown-call', message, { callId: 'zz', approver: 'ann' }),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'zz', approver: 'ann' }, false, [], open),
    refusal('unknown-call', message, { callId: 'zz', approver: 'ann' }),
  );
});

test('a finished call, or one already decided (a duplicate or stale decision), is refused as already decided', () => {
  const message = 'call x1 was already decided';
  for (const status of ['done', 'running', 'ready'] as const) {
    const call: ToolCallRecord = { ...waiting('x1', 'deploy prod', 'irreversible'), status };
    delete call.approval;
    assert.deepEqual(
      judgeDecision({ callId: 'x1', approver: 'ann' }, true, [call], open),
      refusal('already-decided', message, { callId: 'x1', approver: 'ann' }),
      status,
    );
  }
  const decided = waiting('x1', 'deploy prod', 'irreversible');
  decided.approval = {
    requestedAt: '2030-01-01T00:00:00.000Z',
    deadlineMs: NOW,
    decision: { approved: false, approver: 'ann', reason: '', decidedAt: '', via: 'signal' },
  };
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'ann' }, true, [decided], open),
    refusal('already-decided', message, { callId: 'x1', approver: 'ann' }),
  );
});

test('a waiting call with no approval record yet can be decided', () => {
  const call = waiting('x1', 'deploy prod', 'irreversible');
  delete call.approval;
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'ann' }, true, [call], open),
    accepted(call, true, 'ann'),
  );
});

test("the approver must be on the list of the call's tier: irreversible for irreversible calls, mutating for the rest", () => {
  const calls = turn();
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'bob' }, true, calls, strict),
    refusal('unauthorized-approver', 'bob may not decide irreversible calls of this goal', {
      callId: 'x1',
      approver: 'bob',
    }),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'bob' }, false, calls, strict),
    refusal('unauthorized-approver', 'bob may not decide irreversible calls of this goal', {
      callId: 'x1',
      approver: 'bob',
    }),
    'a denial too',
  );
  assert.deepEqual(
    judgeDecision({ callId: 'm1', approver: 'eve' }, true, calls, strict),
    refusal('unauthorized-approver', 'eve may not decide mutating calls of this goal', {
      callId: 'm1',
      approver: 'eve',
    }),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'm1', approver: 'bob' }, true, calls, strict),
    accepted(calls[0] as ToolCallRecord, true, 'bob'),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'alice' }, true, calls, strict),
    accepted(calls[1] as ToolCallRecord, true, 'alice'),
  );
  // Only irreversible calls need the irreversible list: a mutating-only list on the other side.
  const mutatingOnly = {
    ...open,
    approvers: approversSchema.parse({ mutating: ['carol'], irreversible: ['alice'] }),
  };
  assert.deepEqual(
    judgeDecision({ callId: 'm1', approver: 'carol' }, true, calls, mutatingOnly),
    accepted(calls[0] as ToolCallRecord, true, 'carol'),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'm1', approver: 'alice' }, true, calls, mutatingOnly),
    refusal('unauthorized-approver', 'alice may not decide mutating calls of this goal', {
      callId: 'm1',
      approver: 'alice',
    }),
  );
});

test('approver names that are object keys (__proto__, constructor) are names like any other', () => {
  for (const approver of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
    assert.deepEqual(
      judgeDecision(JSON.parse(JSON.stringify({ callId: 'x1', approver })), true, turn(), strict),
      refusal('unauthorized-approver', `${approver} may not decide irreversible calls of this goal`, {
        callId: 'x1',
        approver,
      }),
      approver,
    );
  }
  const raw: unknown = JSON.parse('{"callId":"x1","approver":"__proto__","__proto__":{"approver":"alice"}}');
  assert.deepEqual(
    judgeDecision(raw, true, turn(), strict),
    refusal('malformed-payload', 'malformed decision: Unrecognized key: "__proto__"', {
      callId: 'x1',
      approver: '__proto__',
    }),
  );
});

test('an approver name is read trimmed, so blanks around an allowed name do not make another approver', () => {
  const calls = turn();
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: '  alice ' }, true, calls, strict),
    accepted(calls[1] as ToolCallRecord, true, 'alice'),
  );
});

function signing() {
  const pair = generateKeyPairSync('ed25519');
  const authority: DecisionAuthority = {
    ...strict,
    signatures: {
      scheme: 'ed25519',
      keys: { alice: rawPublicKey(pair.publicKey), bob: rawPublicKey(pair.publicKey) },
    },
    verify: nodeEd25519Verify,
  };
  const signOver = (decision: Partial<SignedDecision>) =>
    signDecision(pair.privateKey, {
      workflowId: 'goal-1',
      callId: 'x1',
      approved: true,
      approver: 'alice',
      ...decision,
    });
  return { authority, signOver };
}

test('signed goals: a decision is accepted only with a signature over exactly its goal, call, verdict, approver and flag', () => {
  const { authority, signOver } = signing();
  const calls = turn();
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'alice', signature: signOver({}) }, true, calls, authority),
    accepted(calls[1] as ToolCallRecord, true, 'alice'),
  );
  const bad = (approver = 'alice', callId = 'x1') =>
    refusal('bad-signature', `signature does not match ${approver}'s key for this decision`, {
      callId,
      approver,
    });
  for (const [name, signed] of [
    ['another goal', { workflowId: 'goal-2' }],
    ['another call', { callId: 'm1' }],
    ['the other verdict', { approved: false }],
    ['with doNotAskAgain', { doNotAskAgain: true }],
    ['another approver', { approver: 'bob' }],
  ] as const) {
    assert.deepEqual(
      judgeDecision({ callId: 'x1', approver: 'alice', signature: signOver(signed) }, true, calls, authority),
      bad(),
      name,
    );
  }
  // The signature carries the verdict in both directions, and the flag on a denial.
  assert.deepEqual(
    judgeDecision(
      {
        callId: 'x1',
        approver: 'alice',
        approved: false,
        doNotAskAgain: true,
        signature: signOver({ approved: false, doNotAskAgain: true }),
      },
      'from-payload',
      calls,
      authority,
    ),
    accepted(calls[1] as ToolCallRecord, false, 'alice', { doNotAskAgain: true }),
  );
  assert.deepEqual(
    judgeDecision(
      { callId: 'x1', approver: 'alice', signature: signOver({ approved: false }) },
      false,
      calls,
      authority,
    ),
    accepted(calls[1] as ToolCallRecord, false, 'alice'),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'alice', signature: signOver({}) }, false, calls, authority),
    bad(),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'alice' }, true, calls, authority),
    refusal('missing-signature', 'this goal requires a signed decision', { callId: 'x1', approver: 'alice' }),
  );
});

test('signed goals: the tier check comes first, and an approver with no key is refused', () => {
  const { authority, signOver } = signing();
  assert.deepEqual(
    judgeDecision(
      { callId: 'x1', approver: 'bob', signature: signOver({ approver: 'bob' }) },
      true,
      turn(),
      authority,
    ),
    refusal('unauthorized-approver', 'bob may not decide irreversible calls of this goal', {
      callId: 'x1',
      approver: 'bob',
    }),
  );
  const anyone = { ...authority, approvers: approversSchema.parse({}) };
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: '__proto__', signature: signOver({}) }, true, turn(), anyone),
    refusal('unauthorized-approver', '__proto__ has no approval key for this goal', {
      callId: 'x1',
      approver: '__proto__',
    }),
  );
});

test('signed goals: the rule given with a decision is signed with it; a signature without it or for another rule fails', () => {
  const { authority, signOver } = signing();
  const call = waiting('m1', 'npm test --watch');
  const rule = { pattern: 'npm test*' };
  const withRule = signOver({ callId: 'm1', rule: signedDecisionRule(true, rule) });
  assert.deepEqual(
    judgeDecision({ callId: 'm1', approver: 'alice', rule, signature: withRule }, true, [call], authority),
    accepted(call, true, 'alice', {
      rule: { tool: 'run_command', pattern: 'npm test*', irreversible: false },
    }),
  );
  const bad = refusal('bad-signature', "signature does not match alice's key for this decision", {
    callId: 'm1',
    approver: 'alice',
  });
  assert.deepEqual(
    judgeDecision(
      { callId: 'm1', approver: 'alice', rule: { pattern: 'npm *' }, signature: withRule },
      true,
      [call],
      authority,
    ),
    bad,
    'a widened rule',
  );
  assert.deepEqual(
    judgeDecision({ callId: 'm1', approver: 'alice', signature: withRule }, true, [call], authority),
    bad,
    'the rule dropped',
  );
  assert.deepEqual(
    judgeDecision(
      { callId: 'm1', approver: 'alice', rule, signature: signOver({ callId: 'm1' }) },
      true,
      [call],
      authority,
    ),
    bad,
    'the rule added',
  );
});

test('a rule given with a decision gets its defaults from the call: its tool, its exact command, not irreversible, no end', () => {
  const call = waiting('m1', 'npm test --watch');
  assert.deepEqual(
    judgeDecision({ callId: 'm1', approver: 'ann', rule: {} }, true, [call], open),
    accepted(call, true, 'ann', {
      rule: { tool: 'run_command', pattern: 'npm test --watch', irreversible: false },
    }),
  );
  const write: ToolCallRecord = {
    ...waiting('w1', ''),
    toolName: 'write_file',
    input: { path: '/ws/src/a.ts', content: 'x' },
  };
  assert.deepEqual(
    judgeDecision({ callId: 'w1', approver: 'ann', rule: {} }, false, [write], { ...open, workspace: '/ws' }),
    accepted(write, false, 'ann', { rule: { tool: 'write_file', pattern: 'src/a.ts', irreversible: false } }),
  );
});

test('a rule given with a decision keeps what it names: tool, pattern, irreversible, until', () => {
  const call = waiting('x1', 'deploy prod', 'irreversible');
  const rule = {
    tool: 'run_command',
    pattern: 'deploy *',
    irreversible: true,
    until: '2030-01-02T00:00:00Z',
  };
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'alice', rule }, true, [call], { ...strict, nowMs: NOW }),
    accepted(call, true, 'alice', { rule }),
  );
  assert.deepEqual(
    judgeDecision(
      { callId: 'x1', approver: 'alice', rule: { ...rule, irreversible: false } },
      false,
      [call],
      strict,
    ),
    accepted(call, false, 'alice', { rule: { ...rule, irreversible: false } }),
    'a forbid rule may leave irreversible off',
  );
});

test("an approval's rule on an irreversible call must say irreversible; a denial's forbid rule need not", () => {
  const call = waiting('x1', 'deploy prod', 'irreversible');
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'alice', rule: { pattern: 'deploy *' } }, true, [call], strict),
    refusal(
      'rule-refused',
      'this call is irreversible: a rule covers irreversible calls only when it says so (irreversible: true, --irreversible)',
      { callId: 'x1', approver: 'alice' },
    ),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'x1', approver: 'alice', rule: { pattern: 'deploy *' } }, false, [call], strict),
    accepted(call, false, 'alice', {
      rule: { tool: 'run_command', pattern: 'deploy *', irreversible: false },
    }),
  );
});

test('a rule that would not cover its own call is refused, in the words of its effect', () => {
  const call = waiting('m1', 'npm test');
  assert.deepEqual(
    judgeDecision({ callId: 'm1', approver: 'ann', rule: { pattern: 'npm tset*' } }, true, [call], open),
    refusal(
      'rule-refused',
      'the rule allow run_command: npm tset* does not match this call (run_command: npm test)',
      {
        callId: 'm1',
        approver: 'ann',
      },
    ),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'm1', approver: 'ann', rule: { pattern: 'npm tset*' } }, false, [call], open),
    refusal(
      'rule-refused',
      'the rule forbid run_command: npm tset* does not match this call (run_command: npm test)',
      {
        callId: 'm1',
        approver: 'ann',
      },
    ),
  );
  const chained = waiting('m1', 'npm test && rm x');
  assert.deepEqual(
    judgeDecision({ callId: 'm1', approver: 'ann', rule: {} }, true, [chained], open),
    refusal('rule-refused', 'no rule can approve this command for later calls: it chains several commands', {
      callId: 'm1',
      approver: 'ann',
    }),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'm1', approver: 'ann', rule: {} }, false, [chained], open),
    accepted(chained, false, 'ann', {
      rule: { tool: 'run_command', pattern: 'npm test && rm x', irreversible: false },
    }),
    'a forbid rule may name a chained command',
  );
});

test('a rule whose until is at or before workflow time is refused; one a millisecond later is kept', () => {
  const call = waiting('m1', 'npm test');
  const at = (until: string, nowMs: number | undefined) =>
    judgeDecision(
      { callId: 'm1', approver: 'ann', rule: { until } },
      true,
      [call],
      nowMs === undefined ? open : { ...open, nowMs },
    );
  const rule = (until: string) => ({ tool: 'run_command', pattern: 'npm test', irreversible: false, until });
  assert.deepEqual(
    at('2030-01-01T00:00:00.000Z', NOW),
    refusal('rule-refused', 'rule.until 2030-01-01T00:00:00.000Z has already passed', {
      callId: 'm1',
      approver: 'ann',
    }),
  );
  assert.deepEqual(
    at('2029-12-31T23:59:59.999Z', NOW),
    refusal('rule-refused', 'rule.until 2029-12-31T23:59:59.999Z has already passed', {
      callId: 'm1',
      approver: 'ann',
    }),
  );
  assert.deepEqual(
    at('2030-01-01T00:00:00.001Z', NOW),
    accepted(call, true, 'ann', { rule: rule('2030-01-01T00:00:00.001Z') }),
  );
  // Without a workflow time, nothing to compare: kept.
  assert.deepEqual(
    at('2000-01-01T00:00:00.000Z', undefined),
    accepted(call, true, 'ann', { rule: rule('2000-01-01T00:00:00.000Z') }),
  );
});

test('a mutating-tier approver may not allow irreversible calls by a rule, even from a mutating call; a forbid rule is theirs to make', () => {
  const call = waiting('m1', 'npm test');
  const rule = { pattern: 'npm *', irreversible: true };
  assert.deepEqual(
    judgeDecision({ callId: 'm1', approver: 'bob', rule }, true, [call], strict),
    refusal(
      'unauthorized-approver',
      'bob may not decide irreversible calls of this goal, so cannot make a rule that covers them',
      { callId: 'm1', approver: 'bob' },
    ),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'm1', approver: 'bob', rule }, false, [call], strict),
    accepted(call, false, 'bob', { rule: { tool: 'run_command', ...rule } }),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'm1', approver: 'bob', rule: { pattern: 'npm *' } }, true, [call], strict),
    accepted(call, true, 'bob', { rule: { tool: 'run_command', pattern: 'npm *', irreversible: false } }),
  );
  assert.deepEqual(
    judgeDecision({ callId: 'm1', approver: 'alice', rule }, true, [call], strict),
    accepted(call, true, 'alice', { rule: { tool: 'run_command', ...rule } }),
  );
});
