import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addRule, emptyRules, ruleFor } from '../../src/workflows/approvals/rule-book';
import { globMatches } from '../../src/workflows/approvals/rule-pattern';
import { normalizedPath } from '../../src/workflows/approvals/rule-subject';

/**
 * The approval rules' edges Stryker's first run found untested (issue 27: mutation testing; kept
 * apart from rule-book-, rule-pattern- and rule-subject-rules so the files that already killed
 * mutants stay unchanged): a forbid rule matched on a line with unbalanced quotes, quotes removed;
 * a text `**\/` that needs its slash where it stands; a workspace at the root `/`.
 */

test("a forbid rule sees a line no shell could read whole with its quotes removed: `rm *` refuses `'rm' -rf x '`", () => {
  // Unbalanced quotes leave no simple command to match; the raw line with its quotes removed is
  // still matched, so a model cannot hide `rm` behind a stray quote.
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
  const context = { nowMs: 0, workspace: '/ws', approvers: { mutating: ['*'], irreversible: ['*'] } };
  for (const line of ["'rm' -rf x '", 'echo "rm" -rf x "', '"rm" -rf x \\']) {
    const verdict = ruleFor(
      added.state,
      { toolName: 'run_command', input: { command: line }, reversibility: 'mutating' },
      context,
    );
    assert.equal(
      verdict === undefined ? undefined : `${verdict.effect} ${verdict.rule.id}`,
      'forbid rule-1',
      line,
    );
  }
});

test('a text `**/` needs its slash right there, even when the subject holds a slash elsewhere', () => {
  // The literal prefilter passes these subjects (each holds `a` and `/b`): the table pass decides.
  assert.equal(globMatches('*a**/b*', '/b ab', 'text'), false);
  assert.equal(globMatches('*a**/b*', '/b a/b', 'text'), true);
  assert.equal(globMatches('*a**/b*', 'a x/b y', 'text'), true);
});

test('a workspace at the root `/`: paths beneath it are relative to it, and `/` itself is `.`', () => {
  assert.equal(normalizedPath('/etc/passwd', '/'), 'etc/passwd');
  assert.equal(normalizedPath('/', '/'), '.');
  assert.equal(normalizedPath('//srv//x/', '/'), 'srv/x');
});
