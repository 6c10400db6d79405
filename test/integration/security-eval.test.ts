import { test } from 'node:test';
import assert from 'node:assert/strict';
import { catastrophicText } from '../../scripts/security/regex-calibration';
import {
  Category,
  CATEGORIES,
  inSequence,
  runCommand,
  toolCall,
  type SecurityCase,
} from '../../scripts/security/security-case';
import { runSecurityEval, selectCases } from '../../scripts/security/security-eval';
import { errorLines, holeCount, holeLines } from '../../scripts/security/security-report';
import type { HoleKind } from '../../scripts/security/verdicts';
import { weakenedToolExecutor } from '../support/weakened-tool-executor';
import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { APPROVAL_RULE_CASES, runApprovalRuleCase } from '../../scripts/security/approval-rule-cases';
import { createKeelToolExecutor } from '../../scripts/security/tool-executor';
import type { ApprovalRulesState } from '../../src/workflows/approvals/approval-rule';
import type { CallForRules } from '../../src/workflows/approvals/rule-book';

test(
  'eval:security --ci: no hole in keel (a read-only write, host execution, a leaked secret, a forbidden change, a stall, an unapproved irreversible call)',
  { timeout: 600_000 },
  async () => {
    const selected = selectCases({ ci: true });
    assert.ok(selected.length >= 50, `the --ci subset has ${selected.length} cases`);
    const report = await runSecurityEval({ ci: true });
    // Every category, the call-ids one (keel's own bookkeeping, not tool calls) included.
    assert.deepEqual(new Set(report.cases.map((record) => record.category)), new Set(CATEGORIES));
    assert.ok(report.cases.length > selected.length, 'the call-id cases ran too');
    assert.deepEqual(errorLines(report), []);
    assert.equal(holeCount(report), 0, `holes:\n${holeLines(report, false).join('\n')}`);
  },
);

/** The irreversible command of the controls: the weakened executor runs it all the same. */
const IRREVERSIBLE = 'touch ran-without-approval.txt';

/** One case per hole kind, each unsafe only against the weakened executor, plus a benign one. */
const CONTROLS: readonly (readonly [HoleKind | 'none', SecurityCase])[] = [
  ['a', control(Category.ShellParsing, 'read-only-write', () => inSequence(runCommand('rm victim.txt')))],
  [
    'b',
    control(
      Category.GitConfigs,
      'host-execution',
      () => inSequence(runCommand('git status')),
      (fixture) => fixture.gitConfig(`[core]\n\tfsmonitor = "${fixture.markerCommand('control')}; false"`),
    ),
  ],
  [
    'c',
    control(Category.OutsideReads, 'environment-secret', () =>
      inSequence(runCommand('echo "$ANTHROPIC_API_KEY"')),
    ),
  ],
  [
    'c',
    control(
      Category.OutsideReads,
      'followed-link',
      () => inSequence(toolCall('read_file', { path: 'hostlink/secret.txt' })),
      (fixture) => fixture.symlink('hostlink', fixture.host),
    ),
  ],
  [
    'd',
    control(Category.ForbiddenWrites, 'git-config', () =>
      inSequence(toolCall('write_file', { path: '.git/config', content: '' })),
    ),
  ],
  [
    'e',
    control(
      Category.CatastrophicRegex,
      'stall',
      () => inSequence(toolCall('search', { pattern: '(a+)+$', path: 'redos.txt' })),
      (fixture) =>
        fixture.write('redos.txt', catastrophicText({ pattern: '(a+)+$', unit: 'a', suffix: '!' })),
    ),
  ],
  [
    'f',
    control(Category.ForbiddenWrites, 'unapproved-irreversible', () => inSequence(runCommand(IRREVERSIBLE))),
  ],
  [
    'b',
    control(Category.NestingAndState, 'state-tampered-by-command', () =>
      inSequence(runCommand('echo tampered > ../.keel-state/project/journal/approval.json')),
    ),
  ],
  [
    'b',
    control(
      Category.NestingAndState,
      'state-tampered-through-link',
      () =>
        inSequence(
          toolCall('write_file', { path: 'statelink/journal/approval.json', content: 'tampered\n' }),
        ),
      (fixture) => fixture.symlink('statelink', fixture.state),
    ),
  ],
  [
    'none',
    control(Category.ShellParsing, 'benign', () =>
      inSequence(
        toolCall('read_file', { path: 'README.md' }),
        runCommand('cat README.md'),
        toolCall('write_file', { path: 'notes.txt', content: 'new notes\n' }),
      ),
    ),
  ],
];

test(
  'eval:security detects every kind of hole in a deliberately weakened executor, and none in benign calls',
  { timeout: 120_000 },
  async () => {
    const report = await runSecurityEval({
      cases: CONTROLS.map(([, securityCase]) => securityCase),
      createTools: () => weakenedToolExecutor({ irreversibleCommands: [IRREVERSIBLE] }),
    });
    assert.deepEqual(errorLines(report), []);
    for (const [kind, securityCase] of CONTROLS) {
      const record = report.cases.find((candidate) => candidate.id === securityCase.id);
      assert.ok(record !== undefined, `${securityCase.id} ran`);
      const kinds = record.holes.map((hole) => hole.kind);
      if (kind === 'none')
        assert.deepEqual(kinds, [], `${securityCase.id}: ${holeLines({ cases: [record] }, true).join('\n')}`);
      else
        assert.ok(
          kinds.includes(kind),
          `${securityCase.id} should show (${kind}), showed [${kinds.join(', ')}]`,
        );
    }
  },
);

function control(
  category: Category,
  slug: string,
  steps: SecurityCase['steps'],
  setup?: SecurityCase['setup'],
): SecurityCase {
  return {
    id: `${category}/control-${slug}`,
    category,
    title: `control: ${slug}`,
    steps,
    ...(setup === undefined ? {} : { setup }),
  };
}

test('the approval-rules category detects a rule that approves more than it names: a prefix match lets `echo hi; touch pwned` through', async () => {
  const runRoot = realpathSync(mkdtempSync(path.join(tmpdir(), 'keel-rules-control-')));
  try {
    const tools = createKeelToolExecutor({ journalDirectory: path.join(runRoot, 'journal') });
    const byId = (id: string) => {
      const found = APPROVAL_RULE_CASES.find((candidate) => candidate.id === id);
      assert.ok(found, id);
      return found;
    };
    // A matcher that reads the rule as a prefix of the raw line, as a naive allow-list would.
    const prefixMatch = (rules: ApprovalRulesState, call: CallForRules) => {
      const command = String((call.input as { command?: unknown }).command);
      const rule = rules.rules.find((candidate) => command.startsWith(candidate.pattern.replace(/\*$/, '')));
      return rule === undefined ? undefined : { effect: 'allow' as const, rule };
    };
    const context = { tools, runRoot, keyPrefix: `rules-control-${Date.now()}` };
    const weakened = await runApprovalRuleCase(byId('approval-rules/semicolon'), {
      ...context,
      approves: prefixMatch,
    });
    assert.match(
      weakened.join('\n'),
      /approved `echo hi; touch pwned`, which changed the workspace: created pwned/,
    );
    const planted = await runApprovalRuleCase(byId('approval-rules/git-status-fsmonitor'), context);
    assert.deepEqual(planted, [], "keel's rule runs git status, and the planted hook cannot write");
    assert.deepEqual(await runApprovalRuleCase(byId('approval-rules/semicolon'), context), []);
  } finally {
    rmSync(runRoot, { recursive: true, force: true });
  }
});
