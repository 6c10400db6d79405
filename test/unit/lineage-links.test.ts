import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renderGoalDetails } from '../../src/workflows/goal/views/details';
import { lineageLinks } from '../../src/workflows/goal/views/lineage-links';
import { emptyCounters, emptyUsage } from '../../src/workflows/goal/lifecycle/state';

/**
 * The Web UI's details link a fork and its original both ways (lineage-links.ts, issue 48): the
 * fork to its original's page, every goal to the search listing the goals forked from it.
 */

const details = (links: ReturnType<typeof lineageLinks>, lineage?: string) =>
  renderGoalDetails({
    workflowId: 'goal-x-fork-t2-abc',
    status: 'running',
    phase: 'thinking',
    goal: 'g',
    task: { index: 0, text: 'g' },
    counters: emptyCounters(),
    usage: emptyUsage(),
    startedAtMs: 0,
    writtenAtMs: 0,
    pendingApprovals: [],
    ...(lineage === undefined ? {} : { lineage }),
    links,
  });

test('a fork links to its original, and every goal to the goals forked from it (a KeelForkOf search)', () => {
  const fork = lineageLinks('team a', 'goal-x-fork-t2-abc', { kind: 'fork', of: 'goal-x' });
  assert.deepEqual(fork, {
    original: '/namespaces/team%20a/workflows/goal-x',
    forks: '/namespaces/team%20a/workflows?query=KeelForkOf%3D%22goal-x-fork-t2-abc%22',
  });
  const lines = details(fork, 'forked from goal-x at turn 2').split('  \n');
  assert.ok(
    lines.includes(
      '**Lineage:** forked from goal-x at turn 2 · [the original](/namespaces/team%20a/workflows/goal-x)',
    ),
    lines.join('\n'),
  );
  assert.ok(lines.some((line) => line.startsWith(`**Forks:** [goals forked from this one](${fork.forks})`)));
});

test('a rewound goal is its own original; a goal from scratch has the forks link only', () => {
  assert.deepEqual(lineageLinks('default', 'goal-x', { kind: 'rewind', of: 'goal-x' }), {
    forks: '/namespaces/default/workflows?query=KeelForkOf%3D%22goal-x%22',
  });
  const plain = details(lineageLinks('default', 'goal-y', undefined));
  assert.doesNotMatch(plain, /Lineage|the original/);
  assert.match(
    plain,
    /\*\*Forks:\*\* \[goals forked from this one\]\(\/namespaces\/default\/workflows\?query=KeelForkOf%3D%22goal-y%22\)/,
  );
});
