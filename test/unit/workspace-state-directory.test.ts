import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  workspaceStateDirectory,
  workspaceStateRoot,
} from '../../src/activities/hosts/workspace-state-directory';
import { createBackupActivities } from '../../src/activities/rollback/workspace-backups';
import { tempDirectory } from '../support/temp-directory';

test("a workspace's journal and backups live beside it, under .keel-state, never inside it", () => {
  assert.equal(workspaceStateDirectory('/work/app', 'journal'), '/work/.keel-state/app/journal');
  assert.equal(workspaceStateDirectory('/work/app/', 'backups'), '/work/.keel-state/app/backups');
  assert.equal(workspaceStateDirectory('/work/x/../app', 'backups'), '/work/.keel-state/app/backups');
  assert.equal(workspaceStateRoot('/work/app'), '/work/.keel-state/app');
});

test('without a configured store, backups go beside the workspace and restore from there', async () => {
  const parent = tempDirectory('keel-state-');
  const workspace = path.join(parent, 'ws');
  mkdirSync(path.join(workspace, 'src'), { recursive: true });
  writeFileSync(path.join(workspace, 'src', 'a.txt'), 'before');
  const backups = createBackupActivities({});

  assert.deepEqual(await backups.backupWorkspace({ workspace, backupId: 'goal-1/attempt 1' }), { files: 1 });
  const beside = path.join(parent, '.keel-state', 'ws', 'backups');
  assert.deepEqual(readdirSync(beside), ['goal-1_attempt_1']);
  assert.deepEqual(readdirSync(workspace), ['src'], 'nothing of keel inside the workspace');

  writeFileSync(path.join(workspace, 'src', 'a.txt'), 'after');
  writeFileSync(path.join(workspace, 'new.txt'), 'new');
  assert.deepEqual(await backups.restoreWorkspace({ workspace, backupId: 'goal-1/attempt 1' }), {
    restored: ['src/a.txt'],
    removed: ['new.txt'],
  });
  assert.equal(readFileSync(path.join(workspace, 'src', 'a.txt'), 'utf8'), 'before');
});

test('a configured store keeps every workspace’s backups, as before', async () => {
  const store = tempDirectory('keel-backups-');
  const workspace = tempDirectory('keel-ws-');
  writeFileSync(path.join(workspace, 'a.txt'), 'a');
  await createBackupActivities({ backupDirectory: store }).backupWorkspace({ workspace, backupId: 'b1' });
  assert.ok(existsSync(path.join(store, 'b1', 'manifest.json')));
  assert.ok(!existsSync(path.join(path.dirname(workspace), '.keel-state', path.basename(workspace))));
});
