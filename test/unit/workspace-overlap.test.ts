import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  claimConflict,
  conflictLine,
  isInsideStateDirectory,
  isWithin,
  workspacesOverlap,
  type WorkspaceClaim,
} from '../../src/activities/hosts/workspace-overlap';
import { workspaceStateRoot } from '../../src/activities/hosts/workspace-state-directory';

const claim = (workflowId: string, workspace: string): WorkspaceClaim => ({
  workflowId,
  workspace,
  stateRoot: workspaceStateRoot(workspace),
});

test('isWithin: a directory holds itself and what lies under it, with or without trailing slashes', () => {
  assert.equal(isWithin('/w/a', '/w/a'), true);
  assert.equal(isWithin('/w/a/', '/w/a'), true);
  assert.equal(isWithin('/w/a', '/w/a/'), true);
  assert.equal(isWithin('/w/a/b', '/w/a'), true);
  assert.equal(isWithin('/w/a/b/c/', '/w/a/'), true);
  assert.equal(isWithin('/w/a', '/w/a/b'), false, 'a parent is not within its child');
  assert.equal(isWithin('/anything', '/'), true, 'everything is within /');
});

test('isWithin: a prefix of the name is not a parent (/w/ab is not under /w/a)', () => {
  assert.equal(isWithin('/w/ab', '/w/a'), false);
  assert.equal(isWithin('/w/a', '/w/ab'), false);
  assert.equal(isWithin('/w/a..b', '/w/a'), false);
  assert.equal(isWithin('/w/..a', '/w'), true, "a name that starts with '..' is a child");
  assert.equal(workspacesOverlap('/w/ab', '/w/a'), false);
});

test('isWithin: .. in paths is resolved before judging', () => {
  assert.equal(isWithin('/w/a/../b', '/w/a'), false);
  assert.equal(isWithin('/w/b/../a/c', '/w/a'), true);
  assert.equal(isWithin('/w/a/sub/../../a/x', '/w/a'), true);
  assert.equal(workspacesOverlap('/w/x/../nest', '/w/nest/sub'), true);
});

test('workspacesOverlap: either way round', () => {
  assert.equal(workspacesOverlap('/w/nest', '/w/nest/sub'), true);
  assert.equal(workspacesOverlap('/w/nest/sub', '/w/nest'), true);
  assert.equal(workspacesOverlap('/w/one', '/w/two'), false);
});

test('isInsideStateDirectory: any .keel-state on the way, not a name that merely contains it', () => {
  assert.equal(isInsideStateDirectory('/w/.keel-state'), true);
  assert.equal(isInsideStateDirectory('/w/.keel-state/app/layers'), true);
  assert.equal(isInsideStateDirectory('/w/x/../.keel-state/app'), true);
  assert.equal(isInsideStateDirectory('/w/.keel-state-not'), false);
  assert.equal(isInsideStateDirectory('/w/app'), false);
});

test("claimConflict: a workspace inside a running goal's is refused, and the reverse", () => {
  const outer = claim('A', '/w/nest');
  const inner = claim('B', '/w/nest/sub');
  assert.deepEqual(claimConflict(inner, [outer]), { kind: 'inside', other: outer });
  assert.deepEqual(claimConflict(outer, [inner]), { kind: 'contains', other: inner });
  assert.match(
    conflictLine(inner, { kind: 'inside', other: outer }),
    /^workspace \/w\/nest\/sub lies inside \/w\/nest, the workspace of running goal A: workspaces never nest/,
  );
  assert.match(
    conflictLine(outer, { kind: 'contains', other: inner }),
    /^workspace \/w\/nest contains \/w\/nest\/sub, the workspace of running goal B/,
  );
});

test('claimConflict: siblings, prefixes, the same goal again and the very same workspace pass', () => {
  assert.equal(claimConflict(claim('B', '/w/ab'), [claim('A', '/w/a')]), undefined);
  assert.equal(claimConflict(claim('B', '/w/two'), [claim('A', '/w/one')]), undefined);
  assert.equal(
    claimConflict(claim('A', '/w/nest/sub'), [claim('A', '/w/nest')]),
    undefined,
    'its own earlier claim',
  );
  assert.equal(
    claimConflict(claim('B', '/w/app/'), [claim('A', '/w/app')]),
    undefined,
    'one workspace, state beside it',
  );
});

test("claimConflict: a workspace holding another goal's state, or keeping its state inside another's workspace", () => {
  // A symbolic link /w/link -> /elsewhere/real keeps its state in /w/.keel-state/link.
  const linked: WorkspaceClaim = {
    workflowId: 'B',
    workspace: '/elsewhere/real',
    stateRoot: '/w/.keel-state/link',
  };
  const holder = claim('A', '/w');
  assert.deepEqual(claimConflict(holder, [linked]), { kind: 'holds-state', other: linked });
  assert.deepEqual(claimConflict(linked, [holder]), { kind: 'state-inside', other: holder });
  assert.match(
    conflictLine(holder, { kind: 'holds-state', other: linked }),
    /contains \/w\/\.keel-state\/link, the state of running goal B/,
  );
  assert.match(
    conflictLine(linked, { kind: 'state-inside', other: holder }),
    /keeps its state in \/w\/\.keel-state\/link, inside \/w/,
  );
});

test("claimConflict: a workspace inside keel's state directory is refused even with no other goal", () => {
  assert.deepEqual(claimConflict(claim('A', '/w/.keel-state/app'), []), { kind: 'in-state-directory' });
  assert.match(
    conflictLine(claim('A', '/w/.keel-state'), { kind: 'in-state-directory' }),
    /lies inside keel's state directory/,
  );
});

test('claimConflict: the first conflicting goal among many is named', () => {
  const others = [claim('A', '/w/one'), claim('B', '/w/two'), claim('C', '/w/two/deep')];
  assert.deepEqual(claimConflict(claim('D', '/w/two/deep/er'), others), { kind: 'inside', other: others[1] });
});

test('claimConflict: a workspace that would hold its own state (/) is refused', () => {
  assert.deepEqual(claimConflict(claim('A', '/'), []), { kind: 'own-state-inside' });
  assert.match(
    conflictLine(claim('A', '/'), { kind: 'own-state-inside' }),
    /^workspace \/ would hold its own state \(\/\.keel-state\)/,
  );
  assert.equal(claimConflict(claim('A', '/srv'), []), undefined, 'a root whose parent is / does not');
});
