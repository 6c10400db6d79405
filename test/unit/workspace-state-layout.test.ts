import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { claimOf } from '../../src/activities/hosts/workspace-claims';
import { claimConflict, isWithin } from '../../src/activities/hosts/workspace-overlap';
import {
  workspaceStateDirectory,
  workspaceStateRoot,
} from '../../src/activities/hosts/workspace-state-directory';
import { tempDirectory } from '../support/temp-directory';

// With nesting refused, the sibling layout keeps every workspace's state out of every workspace.
const kinds = ['journal', 'backups', 'layers', 'carry'] as const;

test('the state directory lies beside the workspace, never inside it', () => {
  for (const workspace of ['/work/app', '/work/app/', '/work/x/../app', '/a/b/c/d']) {
    for (const kind of kinds) {
      const state = workspaceStateDirectory(workspace, kind);
      assert.equal(isWithin(state, workspace), false, `${state} is outside ${workspace}`);
    }
  }
  assert.equal(workspaceStateRoot('/work/x/../app/'), '/work/.keel-state/app');
});

test('a workspace at a root whose parent is / keeps its state in /.keel-state, outside it', () => {
  assert.equal(workspaceStateRoot('/srv'), '/.keel-state/srv');
  for (const kind of kinds) assert.equal(isWithin(workspaceStateDirectory('/srv', kind), '/srv'), false);
});

test(".. in a workspace path is resolved: its state is where the resolved workspace's is", () => {
  assert.equal(workspaceStateRoot('/w/nest/sub/../../other'), '/w/.keel-state/other');
  assert.equal(isWithin(workspaceStateRoot('/w/nest/..'), '/w'), false, 'the parent of /w/nest/.. is /');
});

test('a symbolic link to a workspace is judged by its real path, and its state by where it lies', async () => {
  const base = tempDirectory('keel-state-layout-');
  mkdirSync(path.join(base, 'nest', 'sub'), { recursive: true });
  symlinkSync(path.join(base, 'nest', 'sub'), path.join(base, 'link'));
  const outer = await claimOf('A', path.join(base, 'nest'));
  const linked = await claimOf('B', path.join(base, 'link'));
  assert.equal(linked.workspace, path.join(outer.workspace, 'sub'), 'the link resolves into nest');
  assert.deepEqual(claimConflict(linked, [outer]), { kind: 'inside', other: outer });
  // The link's state lies beside the link, not beside its target: outside both workspaces.
  assert.equal(isWithin(linked.stateRoot, outer.workspace), false);
  assert.equal(isWithin(linked.stateRoot, linked.workspace), false);
});

test("a symbolic link placing a workspace's state inside a running workspace is refused", async () => {
  const base = tempDirectory('keel-state-link-');
  mkdirSync(path.join(base, 'held'), { recursive: true });
  mkdirSync(path.join(base, 'elsewhere', 'real'), { recursive: true });
  // A goal's workspace reached through a link inside another goal's workspace.
  symlinkSync(path.join(base, 'elsewhere', 'real'), path.join(base, 'held', 'link'));
  const holder = await claimOf('A', path.join(base, 'held'));
  const linked = await claimOf('B', path.join(base, 'held', 'link'));
  assert.equal(isWithin(linked.workspace, holder.workspace), false, 'the workspace itself is elsewhere');
  assert.equal(claimConflict(linked, [holder])?.kind, 'state-inside');
  assert.equal(claimConflict(holder, [linked])?.kind, 'holds-state');
});
