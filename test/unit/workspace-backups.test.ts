import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { createBackupActivities } from '../../src/activities/rollback/workspace-backups';
import { makeWorkspace, writeFiles } from './tools-test-helpers';

test('a restore writes through no link the model planted since the backup, and takes a backup of no link', async () => {
  const workspace = makeWorkspace();
  const outside = makeWorkspace('keel-outside-');
  writeFiles(outside, { 'secret.txt': 'host secret\n' });
  writeFiles(workspace, { 'src/app.ts': 'original\n', 'notes.txt': 'notes\n' });
  symlinkSync(path.join(outside, 'secret.txt'), path.join(workspace, 'leak.txt'));
  const backups = createBackupActivities({ backupDirectory: makeWorkspace('keel-backups-') });
  const backup = { workspace, backupId: 'goal-1/attempt-1' };
  assert.deepEqual(
    await backups.backupWorkspace(backup),
    { files: 2 },
    'the link is not backed up as a file',
  );
  // After the backup: src becomes a link out of the workspace, notes.txt is changed.
  rmSync(path.join(workspace, 'src'), { recursive: true });
  symlinkSync(outside, path.join(workspace, 'src'));
  writeFiles(workspace, { 'notes.txt': 'changed\n' });
  const restored = await backups.restoreWorkspace(backup);
  assert.deepEqual(restored.restored.sort(), ['notes.txt', 'src/app.ts']);
  assert.deepEqual(readdirSync(outside), ['secret.txt'], 'nothing written through the link');
  assert.equal(readFileSync(path.join(workspace, 'src/app.ts'), 'utf8'), 'original\n');
  assert.equal(readFileSync(path.join(workspace, 'notes.txt'), 'utf8'), 'notes\n');
});
