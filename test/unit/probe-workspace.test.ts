import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { createHostActivities } from '../../src/activities/hosts';
import { tempDirectory } from '../support/temp-directory';

function setup(roots: (base: string) => string[] = () => []) {
  const base = tempDirectory('keel-probe-');
  mkdirSync(path.join(base, 'root', 'present'), { recursive: true });
  writeFileSync(path.join(base, 'root', 'file.txt'), 'not a directory');
  mkdirSync(path.join(base, 'elsewhere', 'ws'), { recursive: true });
  const activities = createHostActivities({ hostId: 'h1', workspaceRoots: roots(base) });
  const probe = (relative: string) => activities.probeWorkspace({ workspace: path.join(base, relative) });
  return { base, activities, probe };
}

test('without roots a host answers present, missing or not-a-directory, naming itself', async () => {
  const { probe } = setup();
  assert.deepEqual(await probe('root/present'), { hostId: 'h1', state: 'present' });
  assert.deepEqual(await probe('root/absent'), { hostId: 'h1', state: 'missing' });
  assert.deepEqual(await probe('root/file.txt'), { hostId: 'h1', state: 'not-a-directory' });
  assert.deepEqual(await probe('root/file.txt/below'), { hostId: 'h1', state: 'missing' });
  assert.deepEqual(await probe('elsewhere/ws'), { hostId: 'h1', state: 'present' });
});

test('with roots, a path outside them is outside-roots, whether it exists or not', async () => {
  const { probe } = setup((base) => [path.join(base, 'root')]);
  assert.equal((await probe('root/present')).state, 'present');
  assert.equal((await probe('root/absent/deeper')).state, 'missing');
  assert.equal((await probe('root')).state, 'present', 'a root itself is served');
  assert.equal((await probe('elsewhere/ws')).state, 'outside-roots');
  assert.equal((await probe('elsewhere/none')).state, 'outside-roots');
  assert.equal((await probe('root/../elsewhere/ws')).state, 'outside-roots');
  assert.equal((await probe('root-sibling')).state, 'outside-roots', 'a prefix of the name is not inside');
});

test('roots are judged after symbolic links: a link out of a root is outside, a link to a root inside', async () => {
  const { base, probe } = setup((base) => [path.join(base, 'root')]);
  symlinkSync(path.join(base, 'elsewhere'), path.join(base, 'root', 'escape'));
  symlinkSync(path.join(base, 'root'), path.join(base, 'alias'));
  assert.equal((await probe('root/escape/ws')).state, 'outside-roots');
  assert.equal((await probe('alias/present')).state, 'present');
  assert.equal((await probe('alias/absent')).state, 'missing');
});

test('a relative workspace is a bad input, not retried', async () => {
  const { activities } = setup();
  await assert.rejects(
    activities.probeWorkspace({ workspace: 'relative/ws' }),
    (error: unknown) =>
      error instanceof ApplicationFailure &&
      error.nonRetryable &&
      error.type === 'InvalidHostActivityInput' &&
      /absolute path/.test(error.message),
  );
});

test('a host answers, with roots, where under them the workspace is', async () => {
  const { probe } = setup((base) => [path.join(base, 'elsewhere'), path.join(base, 'root')]);
  assert.deepEqual(await probe('root/present'), { hostId: 'h1', state: 'present', relative: 'present' });
  assert.deepEqual(await probe('root/absent/deeper'), {
    hostId: 'h1',
    state: 'missing',
    relative: path.join('absent', 'deeper'),
  });
});

test("a workspace from a host with other roots is found at the same place under this host's roots", async () => {
  const { base, activities } = setup((base) => [path.join(base, 'elsewhere'), path.join(base, 'root')]);
  const moved = (relative: string) =>
    activities.probeWorkspace({ workspace: path.join(base, 'other-host-root', relative), relative });
  // Under the second root: the first that holds it wins.
  assert.deepEqual(await moved('present'), {
    hostId: 'h1',
    state: 'present',
    workspace: path.join(base, 'root', 'present'),
    relative: 'present',
  });
  // Under no root yet: where it would be recreated, under the first.
  assert.deepEqual(await moved('absent'), {
    hostId: 'h1',
    state: 'missing',
    workspace: path.join(base, 'elsewhere', 'absent'),
    relative: 'absent',
  });
  // A path that climbs out of the roots is never mapped.
  assert.deepEqual(await moved('../../etc'), { hostId: 'h1', state: 'outside-roots' });
  assert.deepEqual(await moved('present/../../x'), { hostId: 'h1', state: 'outside-roots' });
  // Without the relative path (a goal's start), a path outside the roots stays outside.
  assert.deepEqual(
    await activities.probeWorkspace({ workspace: path.join(base, 'other-host-root', 'present') }),
    { hostId: 'h1', state: 'outside-roots' },
  );
});
