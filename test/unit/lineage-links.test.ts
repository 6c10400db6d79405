import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lineageLinks } from '../../src/workflows/goal/views/lineage-links';

/**
 * The Web UI's details link a fork and its original both ways (lineage-links.ts, issue 48): the
 * fork to its original's page, every goal to the search listing the goals forked from it. That
 * the Web UI shows and follows them is tested in the real Web UI (test/integration/web-ui.test.ts).
 */

test('a fork links to its original, and every goal to the goals forked from it (a KeelForkOf search)', () => {
  const fork = lineageLinks('team a', 'goal-x-fork-t2-abc', { kind: 'fork', of: 'goal-x' });
  assert.deepEqual(fork, {
    original: '/namespaces/team%20a/workflows/goal-x',
    forks: '/namespaces/team%20a/workflows?query=KeelForkOf%3D%22goal-x-fork-t2-abc%22',
  });
});

test('a rewound goal is its own original: it has the forks link only', () => {
  assert.deepEqual(lineageLinks('default', 'goal-x', { kind: 'rewind', of: 'goal-x' }), {
    forks: '/namespaces/default/workflows?query=KeelForkOf%3D%22goal-x%22',
  });
});
