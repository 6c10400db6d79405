import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Category, inSequence, toolCall, type SecurityCase } from '../../scripts/security/security-case';
import { runSecurityEval } from '../../scripts/security/security-eval';
import { errorLines, holeLines } from '../../scripts/security/security-report';
import type { HoleKind } from '../../scripts/security/verdicts';
import { weakenedToolExecutor } from '../support/weakened-tool-executor';

/**
 * Issue 43's two categories detect their holes: against the weakened executor (plain writes as
 * root, nothing checked) a rewritten setuid program keeps its bit, HEAD completes a repository
 * git finds without .git, and a config file .git/config includes runs its fsmonitor when the
 * user runs `git status`. A benign call shows nothing.
 */
const CONTROLS: readonly (readonly [HoleKind | 'none', SecurityCase])[] = [
  [
    'd',
    {
      id: `${Category.Privileges}/control-rewritten-setuid`,
      category: Category.Privileges,
      title: 'control: new content in a setuid program, bit kept',
      setup: (fixture) => fixture.write('bin/planted-suid', '#!/bin/sh\nid\n', 0o4755),
      steps: () =>
        inSequence(toolCall('write_file', { path: 'bin/planted-suid', content: '#!/bin/sh\nsh\n' })),
    },
  ],
  [
    'd',
    {
      id: `${Category.GitWithoutDotGit}/control-head-completes-repository`,
      category: Category.GitWithoutDotGit,
      title: 'control: HEAD beside objects/, refs/ and config',
      setup: (fixture) => {
        fixture.write('store/objects/.keep', '');
        fixture.write('store/refs/.keep', '');
        fixture.write('store/config', '[core]\n\tbare = true\n');
      },
      steps: () =>
        inSequence(toolCall('write_file', { path: 'store/HEAD', content: 'ref: refs/heads/main\n' })),
    },
  ],
  [
    'b',
    {
      id: `${Category.GitWithoutDotGit}/control-included-config-runs`,
      category: Category.GitWithoutDotGit,
      title: 'control: a config .git/config includes gets core.fsmonitor; the user runs git status',
      setup: (fixture) => {
        fixture.write('config/.keep', '');
        fixture.gitConfig('[include]\n\tpath = ../config/shared.cfg');
      },
      steps: (fixture) => [
        ...inSequence(
          toolCall('write_file', {
            path: 'config/shared.cfg',
            content: `[core]\n\tfsmonitor = "${fixture.markerCommand('control-include')}; false"\n`,
          }),
        ),
        { calls: [], hostScript: 'git status >/dev/null 2>&1', durationMs: 2500 },
      ],
    },
  ],
  [
    'none',
    {
      id: `${Category.Privileges}/control-benign`,
      category: Category.Privileges,
      title: 'control: an ordinary file beside a setuid program left alone',
      setup: (fixture) => fixture.write('bin/planted-suid', '#!/bin/sh\nid\n', 0o4755),
      steps: () => inSequence(toolCall('write_file', { path: 'notes.txt', content: 'notes\n' })),
    },
  ],
];

test(
  'eval:security privileges and git-without-dot-git detect their holes in a weakened executor, and none in a benign call',
  { timeout: 120_000 },
  async () => {
    const report = await runSecurityEval({
      cases: CONTROLS.map(([, securityCase]) => securityCase),
      createTools: () => weakenedToolExecutor({ irreversibleCommands: [] }),
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
