import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { createCarryWorkspaceActivities } from '../../src/activities/hosts/carry-workspace';
import { workspaceStateDirectory } from '../../src/activities/hosts/workspace-state-directory';
import { restoreCheckpoint, takeCheckpoint } from '../../src/activities/checkpoints/checkpoint-store';
import { tempDirectory } from '../support/temp-directory';

function twoHosts(limitBytes?: number) {
  const base = tempDirectory('keel-carry-');
  const roots = { old: path.join(base, 'a'), next: path.join(base, 'b') };
  mkdirSync(roots.old);
  mkdirSync(roots.next);
  const old = createCarryWorkspaceActivities(
    { hostId: 'h-a', workspaceRoots: [roots.old] },
    ...(limitBytes === undefined ? [] : [{ limitBytes }]),
  );
  const next = createCarryWorkspaceActivities({ hostId: 'h-b', workspaceRoots: [roots.next] });
  return { roots, old, next };
}

test('a workspace is packed on one host, carried in chunks and unpacked whole under another root', async () => {
  const { roots, old, next } = twoHosts();
  const here = path.join(roots.old, 'app');
  mkdirSync(path.join(here, 'src', 'deep'), { recursive: true });
  mkdirSync(path.join(here, '.git'));
  writeFileSync(path.join(here, 'src', 'deep', 'a.txt'), 'hello\n');
  writeFileSync(path.join(here, '.git', 'HEAD'), 'ref: refs/heads/main\n');
  writeFileSync(path.join(here, 'run.sh'), '#!/bin/sh\n', { mode: 0o755 });
  const large = randomBytes(600 * 1024); // incompressible: three chunks
  writeFileSync(path.join(here, 'large.bin'), large);
  symlinkSync('src/deep/a.txt', path.join(here, 'link'));

  const pack = await old.packWorkspace({ workspace: here, packId: 'p1' });
  assert.equal(pack.chunks, 3);
  assert.equal(pack.files, 4);
  const there = path.join(roots.next, 'app');
  // Out of order, and one twice (a retried activity): the chunks land at their places.
  for (const index of [2, 0, 1, 1]) {
    const chunk = await old.readPackChunk({ workspace: here, packId: 'p1', index });
    await next.writePackChunk({ workspace: there, packId: 'p1', index, data: chunk.data });
  }
  assert.deepEqual(
    await next.unpackWorkspace({ workspace: there, packId: 'p1', bytes: pack.bytes, digest: pack.digest }),
    { files: 4 },
  );
  assert.equal(readFileSync(path.join(there, 'src', 'deep', 'a.txt'), 'utf8'), 'hello\n');
  assert.equal(readFileSync(path.join(there, '.git', 'HEAD'), 'utf8'), 'ref: refs/heads/main\n');
  assert.ok(readFileSync(path.join(there, 'large.bin')).equals(large));
  assert.equal(statSync(path.join(there, 'run.sh')).mode & 0o777, 0o755);
  assert.equal(readlinkSync(path.join(there, 'link')), 'src/deep/a.txt');
  await old.dropPack({ workspace: here, packId: 'p1' });
  assert.equal(existsSync(path.join(roots.old, '.keel-state', 'app', 'carry', 'p1.pack')), false);
});

test('a damaged pack is refused before anything is unpacked; a workspace already there is never replaced', async () => {
  const { roots, old, next } = twoHosts();
  const here = path.join(roots.old, 'app');
  mkdirSync(here);
  writeFileSync(path.join(here, 'a.txt'), 'a');
  const pack = await old.packWorkspace({ workspace: here, packId: 'p2' });
  const there = path.join(roots.next, 'app');
  await next.writePackChunk({
    workspace: there,
    packId: 'p2',
    index: 0,
    data: Buffer.from('junk').toString('base64'),
  });
  await assert.rejects(
    next.unpackWorkspace({ workspace: there, packId: 'p2', bytes: pack.bytes, digest: pack.digest }),
    (error: unknown) =>
      error instanceof ApplicationFailure &&
      error.type === 'WorkspaceUnpreparable' &&
      /arrived damaged/.test(error.message),
  );
  assert.equal(existsSync(there), false);
  mkdirSync(there);
  await assert.rejects(
    next.unpackWorkspace({ workspace: there, packId: 'p2', bytes: pack.bytes, digest: pack.digest }),
    /it is present/,
  );
});

test('a workspace above the carry limit is refused in one line, naming its size and what to do', async () => {
  const { roots, old } = twoHosts(100 * 1024);
  const here = path.join(roots.old, 'app');
  mkdirSync(here);
  writeFileSync(path.join(here, 'large.bin'), randomBytes(300 * 1024));
  await assert.rejects(old.packWorkspace({ workspace: here, packId: 'p3' }), (error: unknown) => {
    assert.ok(error instanceof ApplicationFailure);
    assert.equal(error.nonRetryable, true);
    assert.equal(error.message.split('\n').length, 1);
    assert.match(
      error.message,
      /^host h-a: the workspace \S+app packs to 0\.3 MB or more, above the 0\.1 MB a move can carry .*copy it to the new host yourself/,
    );
    return true;
  });
});

test('a pack written by hand into history cannot write through a link it made', async () => {
  const { roots, next } = twoHosts();
  const outside = tempDirectory('keel-carry-outside-');
  const entries = [
    { kind: 'symlink', path: 'a', target: outside },
    { kind: 'file', path: 'a/planted.txt', mode: 0o644, data: Buffer.from('x').toString('base64') },
  ];
  const pack = gzipSync(Buffer.from(JSON.stringify(entries)));
  const there = path.join(roots.next, 'app');
  await next.writePackChunk({ workspace: there, packId: 'p3', index: 0, data: pack.toString('base64') });
  const digest = createHash('sha256').update(pack).digest('hex');
  await assert.rejects(
    next.unpackWorkspace({ workspace: there, packId: 'p3', bytes: pack.length, digest }),
    (error: unknown) =>
      error instanceof ApplicationFailure && /unsafe path: a\/planted\.txt/.test(error.message),
  );
  assert.equal(existsSync(path.join(outside, 'planted.txt')), false);
  assert.equal(existsSync(there), false);
});

test("the workspace's turn checkpoints go with it: a fork on the new host has the files of an earlier turn", async () => {
  const { roots, old, next } = twoHosts();
  const here = path.join(roots.old, 'app');
  mkdirSync(here);
  writeFileSync(path.join(here, 'a.txt'), 'turn one\n');
  const store = (workspace: string) => workspaceStateDirectory(workspace, 'checkpoints');
  await takeCheckpoint({ store: store(here), goalId: 'goal-x', workspace: here, turn: 1 });
  writeFileSync(path.join(here, 'a.txt'), 'turn two\n');
  writeFileSync(path.join(here, 'b.txt'), 'added\n');
  await takeCheckpoint({ store: store(here), goalId: 'goal-x', workspace: here, turn: 2 });

  const pack = await old.packWorkspace({ workspace: here, packId: 'p4' });
  assert.deepEqual(pack.checkpoints?.carried, true);
  assert.equal(pack.files, 2, 'the checkpoints are not counted as the workspace');
  const there = path.join(roots.next, 'app');
  await carry(old, next, { here, there, pack });
  const fork = path.join(roots.next, 'app-fork');
  const restored = await restoreCheckpoint({
    store: store(there),
    goalId: 'goal-x',
    turn: 1,
    target: fork,
    mode: 'new',
  });
  assert.equal(restored?.fromTurn, 1);
  assert.deepEqual(readdirSync(fork), ['a.txt']);
  assert.equal(readFileSync(path.join(fork, 'a.txt'), 'utf8'), 'turn one\n');
  assert.deepEqual(readdirSync(there).sort(), ['a.txt', 'b.txt'], 'the workspace holds its own files only');
});

test('checkpoints that would put the pack over the limit stay behind, and the move says so; no setuid bit travels', async () => {
  const { roots, old, next } = twoHosts(64 * 1024);
  const here = path.join(roots.old, 'app');
  mkdirSync(here);
  writeFileSync(path.join(here, 'tool'), '#!/bin/sh\n', { mode: 0o755 });
  chmodSync(path.join(here, 'tool'), 0o4755);
  const store = workspaceStateDirectory(here, 'checkpoints');
  writeFileSync(path.join(here, 'old.bin'), randomBytes(48 * 1024));
  await takeCheckpoint({ store, goalId: 'goal-x', workspace: here, turn: 1 });
  writeFileSync(path.join(here, 'old.bin'), randomBytes(16 * 1024));
  const pack = await old.packWorkspace({ workspace: here, packId: 'p5' });
  assert.deepEqual(pack.checkpoints, { carried: false, files: pack.checkpoints?.files });
  assert.ok((pack.checkpoints?.files ?? 0) > 0);
  const there = path.join(roots.next, 'app');
  await carry(old, next, { here, there, pack });
  assert.equal(existsSync(workspaceStateDirectory(there, 'checkpoints')), false);
  assert.equal(statSync(path.join(there, 'tool')).mode & 0o7777, 0o755);
});

async function carry(
  old: ReturnType<typeof createCarryWorkspaceActivities>,
  next: ReturnType<typeof createCarryWorkspaceActivities>,
  move: {
    here: string;
    there: string;
    pack: { packId: string; chunks: number; bytes: number; digest: string };
  },
): Promise<void> {
  const { here, there, pack } = move;
  for (let index = 0; index < pack.chunks; index += 1) {
    const chunk = await old.readPackChunk({ workspace: here, packId: pack.packId, index });
    await next.writePackChunk({ workspace: there, packId: pack.packId, index, data: chunk.data });
  }
  await next.unpackWorkspace({
    workspace: there,
    packId: pack.packId,
    bytes: pack.bytes,
    digest: pack.digest,
  });
}
