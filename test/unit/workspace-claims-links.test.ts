import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, realpathSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import {
  claimOf,
  claimWorkspace,
  linksOnTheWay,
  registryDirectory,
} from '../../src/activities/hosts/workspace-claims';
import { claimConflict } from '../../src/activities/hosts/workspace-overlap';
import { tempDirectory } from '../support/temp-directory';

/**
 * Issue 43, workspaces never nest: a goal keeps using its workspace's path as given, so a symbolic
 * link on that path lying in another goal's workspace lets that goal point this one's tools and
 * held changes elsewhere, though the real paths are apart.
 */
function setup() {
  const base = realpathSync(tempDirectory('keel-claims-links-'));
  for (const directory of ['a', 'c/w', 'd/w']) mkdirSync(path.join(base, directory), { recursive: true });
  // Goal A's workspace holds a link to c; the host has another link to d outside every workspace.
  symlinkSync(path.join(base, 'c'), path.join(base, 'a', 'to-c'));
  symlinkSync(path.join(base, 'd'), path.join(base, 'to-d'));
  const directory = registryDirectory('h1', [path.join(base, 'roots')]);
  const isLive = () => Promise.resolve(true);
  const claim = async (workflowId: string, given: string) =>
    claimWorkspace({ directory, claim: await claimOf(workflowId, path.join(base, given)), isLive });
  return { base, directory, claim };
}

test('the links a path passes through are listed where they lie, a path without any lists none', async () => {
  const { base } = setup();
  assert.deepEqual(await linksOnTheWay(path.join(base, 'a', 'to-c')), [path.join(base, 'a', 'to-c')]);
  assert.deepEqual(await linksOnTheWay(path.join(base, 'a', 'to-c', 'new', 'deeper')), [
    path.join(base, 'a', 'to-c'),
  ]);
  assert.deepEqual(await linksOnTheWay(path.join(base, 'c')), []);
  const claim = await claimOf('B', path.join(base, 'a', 'to-c'));
  assert.equal(claim.workspace, path.join(base, 'c'), 'the real path, as before');
  assert.deepEqual(claim.links, [path.join(base, 'a', 'to-c')]);
  assert.equal((await claimOf('B', path.join(base, 'c'))).links, undefined, 'none: the claim as before');
});

test("a workspace reached through a link inside a running goal's workspace is refused with one line", async () => {
  const { claim } = setup();
  assert.deepEqual(await claim('A', 'a'), { ok: true });
  // Given as the link itself, its state would lie beside it in A's workspace (refused before);
  // one level below the link, both real paths are apart from A's.
  const through = await claim('B', 'a/to-c/w');
  assert.equal(through.ok, false);
  const line = !through.ok ? through.line : '';
  assert.match(
    line,
    /^workspace .*\/c\/w is reached through the symbolic link .*\/a\/to-c, inside .*\/a, the workspace of running goal A, which that goal could point elsewhere: give the workspace by its real path/,
  );
  assert.doesNotMatch(line, /\n/);
  assert.deepEqual(await claim('B', 'c/w'), { ok: true }, 'by its real path it may run');
});

test('the reverse: a goal whose workspace holds the link another goal runs through is refused', async () => {
  const { claim, directory } = setup();
  assert.deepEqual(await claim('B', 'a/to-c/w'), { ok: true });
  const registry = JSON.parse(readFileSync(path.join(directory, 'workspace-claims.json'), 'utf8')) as {
    claims: Array<{ workflowId: string; links?: string[] }>;
  };
  assert.equal(registry.claims[0]?.links?.length, 1, 'the registry keeps the links');
  const holds = await claim('A', 'a');
  assert.match(
    !holds.ok ? holds.line : '',
    /^workspace .*\/a contains the symbolic link .*\/a\/to-c, through which running goal B reaches its workspace .*\/c\/w: a goal here could point it elsewhere/,
  );
});

test('a link outside every workspace is no one goal’s to change: the claim stands', async () => {
  const { claim } = setup();
  assert.deepEqual(await claim('A', 'a'), { ok: true });
  assert.deepEqual(await claim('D', 'to-d/w'), { ok: true });
});

test('claims recorded before, without links, conflict as they did', () => {
  const older = { workflowId: 'A', workspace: '/w/a', stateRoot: '/w/.keel-state/a' };
  const newer = { workflowId: 'B', workspace: '/w/c', stateRoot: '/w/.keel-state/c', links: ['/w/a/to-c'] };
  assert.equal(claimConflict(newer, [older])?.kind, 'through-link');
  assert.equal(claimConflict(older, [newer])?.kind, 'holds-link');
  assert.equal(claimConflict({ ...newer, links: ['/w/b/to-c'] }, [older]), undefined);
});
