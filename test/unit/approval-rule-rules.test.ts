import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  approvalRuleSchema,
  approvalRulesStateSchema,
  decisionRuleSchema,
  MAX_RULES,
  parseRuleText,
  RULES_SCHEMA_VERSION,
  RuleEffect,
  RuleSource,
  ruleScopeSchema,
  ruleSpecSchema,
  ruleText,
  signedDecisionRule,
} from '../../src/workflows/approvals/approval-rule';

/**
 * The rules of an approval rule's schema and text (approval-rule.ts; issue 27: mutation testing):
 * a tool name without blanks or colons, a trimmed pattern of 1 to 1000 characters defaulting to
 * `*`, irreversible calls only when said, an ISO until, no extra field anywhere (a model or a
 * file cannot slip in a field nobody checks), at most 200 rules; `tool: pattern` text both ways,
 * and the rule of a decision as its signature covers it.
 */

/** The first issue's path and message, or 'ok' with the parsed value. */
function verdict(schema: { safeParse: (raw: unknown) => unknown }, raw: unknown): unknown {
  const parsed = schema.safeParse(raw) as
    | { success: true; data: unknown }
    | { success: false; error: { issues: Array<{ path: PropertyKey[]; message: string }> } };
  if (parsed.success) return { ok: parsed.data };
  const issue = parsed.error.issues[0];
  return `${issue?.path.join('.')}: ${issue?.message}`;
}

test('the constants: schema version 1, at most 200 rules, the effects and sources by name', () => {
  assert.equal(RULES_SCHEMA_VERSION, 1);
  assert.equal(MAX_RULES, 200);
  assert.deepEqual(RuleEffect, { Allow: 'allow', Forbid: 'forbid' });
  assert.deepEqual(RuleSource, {
    GoalInput: 'goal-input',
    WorkerPolicy: 'worker-policy',
    Decision: 'decision',
    Added: 'added',
  });
});

test('a scope: tool and pattern trimmed, the pattern `*` and irreversible false by default', () => {
  assert.deepEqual(verdict(ruleScopeSchema, { tool: ' run_command ', pattern: ' npm test* ' }), {
    ok: { tool: 'run_command', pattern: 'npm test*', irreversible: false },
  });
  assert.deepEqual(verdict(ruleScopeSchema, { tool: 'x' }), {
    ok: { tool: 'x', pattern: '*', irreversible: false },
  });
  assert.deepEqual(
    verdict(ruleScopeSchema, {
      tool: 'x',
      pattern: 'p',
      irreversible: true,
      until: '2030-01-01T00:00:00+02:00',
    }),
    { ok: { tool: 'x', pattern: 'p', irreversible: true, until: '2030-01-01T00:00:00+02:00' } },
  );
});

test('a tool name: required, 1 to 200 characters after trimming, no blanks or colons', () => {
  assert.equal(verdict(ruleScopeSchema, {}), 'tool: tool is required');
  assert.equal(verdict(ruleScopeSchema, { tool: 5 }), 'tool: tool is required');
  assert.equal(verdict(ruleScopeSchema, { tool: '  ' }), 'tool: tool is required');
  assert.deepEqual(verdict(ruleScopeSchema, { tool: 'x'.repeat(200) }), {
    ok: { tool: 'x'.repeat(200), pattern: '*', irreversible: false },
  });
  assert.equal(
    verdict(ruleScopeSchema, { tool: 'x'.repeat(201) }),
    'tool: a tool name has at most 200 characters',
  );
  for (const tool of ['run command', 'run\tcommand', 'a\nb', 'run_command:x', ':']) {
    assert.equal(
      verdict(ruleScopeSchema, { tool }),
      'tool: a tool name has no blanks or colons',
      JSON.stringify(tool),
    );
  }
  assert.deepEqual(verdict(ruleScopeSchema, { tool: '*' }), {
    ok: { tool: '*', pattern: '*', irreversible: false },
  });
});

test('a pattern: 1 to 1000 characters after trimming', () => {
  assert.equal(verdict(ruleScopeSchema, { tool: 'x', pattern: ' \n ' }), 'pattern: pattern is empty');
  assert.deepEqual(verdict(ruleScopeSchema, { tool: 'x', pattern: 'p'.repeat(1000) }), {
    ok: { tool: 'x', pattern: 'p'.repeat(1000), irreversible: false },
  });
  assert.equal(
    verdict(ruleScopeSchema, { tool: 'x', pattern: 'p'.repeat(1001) }),
    'pattern: a pattern has at most 1000 characters',
  );
});

test('irreversible must be a boolean, until an ISO date-time; no other field is taken', () => {
  assert.equal(
    verdict(ruleScopeSchema, { tool: 'x', irreversible: 'yes' }),
    'irreversible: irreversible must be true or false',
  );
  assert.equal(
    verdict(ruleScopeSchema, { tool: 'x', until: 'tomorrow' }),
    'until: until must be an ISO date-time',
  );
  assert.deepEqual(verdict(ruleScopeSchema, { tool: 'x', until: '2030-01-01T00:00:00Z' }), {
    ok: { tool: 'x', pattern: '*', irreversible: false, until: '2030-01-01T00:00:00Z' },
  });
  assert.equal(verdict(ruleScopeSchema, { tool: 'x', effect: 'allow' }), ': Unrecognized key: "effect"');
});

test('a decision rule: every field optional, the same limits, its own messages, nothing extra', () => {
  assert.deepEqual(verdict(decisionRuleSchema, {}), { ok: {} });
  assert.deepEqual(verdict(decisionRuleSchema, { tool: ' t ', pattern: ' p ' }), {
    ok: { tool: 't', pattern: 'p' },
  });
  assert.equal(verdict(decisionRuleSchema, { tool: 'a b' }), 'tool: a tool name has no blanks or colons');
  assert.equal(verdict(decisionRuleSchema, { pattern: ' ' }), 'pattern: pattern is empty');
  assert.equal(
    verdict(decisionRuleSchema, { irreversible: 1 }),
    'irreversible: rule.irreversible must be true or false',
  );
  assert.deepEqual(verdict(decisionRuleSchema, { until: '2030-01-01T00:00:00+02:00' }), {
    ok: { until: '2030-01-01T00:00:00+02:00' },
  });
  assert.equal(verdict(decisionRuleSchema, { until: 'soon' }), 'until: rule.until must be an ISO date-time');
  assert.equal(verdict(decisionRuleSchema, { effect: 'allow' }), ': Unrecognized key: "effect"');
});

test('a rule spec: allow or forbid, a reason of at most 2000 characters, nothing extra', () => {
  assert.deepEqual(verdict(ruleSpecSchema, { tool: 'x', effect: 'forbid', reason: 'r'.repeat(2000) }), {
    ok: { tool: 'x', pattern: '*', irreversible: false, effect: 'forbid', reason: 'r'.repeat(2000) },
  });
  assert.deepEqual(verdict(ruleSpecSchema, { tool: 'x', effect: 'allow' }), {
    ok: { tool: 'x', pattern: '*', irreversible: false, effect: 'allow' },
  });
  assert.equal(
    verdict(ruleSpecSchema, { tool: 'x', effect: 'allow', reason: 'r'.repeat(2001) }),
    'reason: Too big: expected string to have <=2000 characters',
  );
  assert.equal(
    verdict(ruleSpecSchema, { tool: 'x', effect: 'maybe' }),
    'effect: Invalid option: expected one of "allow"|"forbid"',
  );
  assert.equal(verdict(ruleSpecSchema, { tool: 'x', effect: 'allow', by: 'me' }), ': Unrecognized key: "by"');
});

const stored = {
  id: 'rule-1',
  tool: 'x',
  pattern: '*',
  irreversible: false,
  effect: 'allow',
  source: 'decision',
  by: 'ann',
  reason: '',
  createdAt: 't',
};

test('a stored rule: each source is known, revocation is whole, nothing extra', () => {
  for (const source of ['goal-input', 'worker-policy', 'decision', 'added']) {
    assert.deepEqual(
      verdict(approvalRuleSchema, { ...stored, source }),
      { ok: { ...stored, source } },
      source,
    );
  }
  assert.equal(
    verdict(approvalRuleSchema, { ...stored, source: 'model' }),
    'source: Invalid option: expected one of "goal-input"|"worker-policy"|"decision"|"added"',
  );
  const full = { ...stored, fromCallId: 'c1', signed: true, revoked: { by: 'bob', at: 'now', reason: 'r' } };
  assert.deepEqual(verdict(approvalRuleSchema, full), { ok: full });
  assert.equal(
    verdict(approvalRuleSchema, { ...stored, revoked: { by: 'bob' } }),
    'revoked.at: Invalid input: expected string, received undefined',
  );
  assert.equal(verdict(approvalRuleSchema, { ...stored, trusted: true }), ': Unrecognized key: "trusted"');
});

test('the rules state: version 1, a positive whole next number, at most 200 rules', () => {
  const state = (over: object) => ({ schemaVersion: 1, nextNumber: 1, rules: [], ...over });
  assert.deepEqual(verdict(approvalRulesStateSchema, state({})), { ok: state({}) });
  assert.equal(
    verdict(approvalRulesStateSchema, state({ schemaVersion: 2 })),
    'schemaVersion: Invalid input: expected 1',
  );
  for (const nextNumber of [0, -1, 1.5]) {
    assert.equal(
      typeof verdict(approvalRulesStateSchema, state({ nextNumber })),
      'string',
      String(nextNumber),
    );
  }
  const rules = (count: number) =>
    Array.from({ length: count }, (_, index) => ({ ...stored, id: `rule-${index}` }));
  assert.deepEqual(verdict(approvalRulesStateSchema, state({ rules: rules(200) })), {
    ok: state({ rules: rules(200) }),
  });
  assert.equal(
    verdict(approvalRulesStateSchema, state({ rules: rules(201) })),
    'rules: Too big: expected array to have <=200 items',
  );
});

test('rule text: `tool: pattern` split at the first colon, trimmed; the tool alone or an empty pattern means `*`', () => {
  const ok = (tool: string, pattern: string) => ({ ok: true, scope: { tool, pattern, irreversible: false } });
  assert.deepEqual(parseRuleText('  run_command :  npm test*  '), ok('run_command', 'npm test*'));
  assert.deepEqual(parseRuleText('run_command: a: b'), ok('run_command', 'a: b'));
  assert.deepEqual(parseRuleText('write_file'), ok('write_file', '*'));
  assert.deepEqual(parseRuleText(' write_file '), ok('write_file', '*'));
  assert.deepEqual(parseRuleText('write_file:'), ok('write_file', '*'));
  assert.deepEqual(parseRuleText('write_file:   '), ok('write_file', '*'));
  assert.deepEqual(parseRuleText('*: rm *'), ok('*', 'rm *'));
});

test('rule text that is no rule: the whole error names the text, what is wrong and the form', () => {
  assert.deepEqual(parseRuleText('run command: x'), {
    ok: false,
    error:
      '"run command: x" is not a rule (a tool name has no blanks or colons); write it as tool: pattern, e.g. "run_command: npm test*"',
  });
  assert.deepEqual(parseRuleText(': x'), {
    ok: false,
    error: '": x" is not a rule (tool is required); write it as tool: pattern, e.g. "run_command: npm test*"',
  });
  assert.deepEqual(parseRuleText(`t: ${'p'.repeat(1001)}`), {
    ok: false,
    error: `"t: ${'p'.repeat(1001)}" is not a rule (a pattern has at most 1000 characters); write it as tool: pattern, e.g. "run_command: npm test*"`,
  });
});

test('a rule as people read it: effect, tool: pattern, then irreversible and until in parentheses', () => {
  const scope = { tool: 'run_command', pattern: 'deploy*', irreversible: false };
  assert.equal(ruleText(scope), 'run_command: deploy*');
  assert.equal(ruleText({ ...scope, effect: 'forbid' }), 'forbid run_command: deploy*');
  assert.equal(ruleText({ ...scope, irreversible: true }), 'run_command: deploy* (irreversible calls too)');
  assert.equal(ruleText({ ...scope, until: 'T' }), 'run_command: deploy* (until T)');
  assert.equal(
    ruleText({ ...scope, effect: 'allow', irreversible: true, until: 'T' }),
    'allow run_command: deploy* (irreversible calls too, until T)',
  );
});

test('the signed rule of a decision: allow when approved, forbid when denied, absent fields as sent', () => {
  assert.deepEqual(signedDecisionRule(true, {}), {
    effect: 'allow',
    tool: '',
    pattern: '',
    irreversible: false,
    until: undefined,
  });
  assert.deepEqual(signedDecisionRule(false, { tool: 't', pattern: 'p', irreversible: true, until: 'U' }), {
    effect: 'forbid',
    tool: 't',
    pattern: 'p',
    irreversible: true,
    until: 'U',
  });
});
