// A workspace may not hold keel's own state: the claims registry (whichever directory holds it)
// or a root's `.keel-state`, where every sibling's held changes and journals lie.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { claimOf, claimWorkspace, registryDirectory } from '../../src/activities/hosts/workspace-claims';
import { tempDirectory } from '../support/temp-directory';

const isLive = () => Promise.resolve(true);

async function claimIn(
  directory: string,
  workflowId: string,
  workspace: string,
  stateDirectories?: string[],
) {
  return claimWorkspace({ directory, claim: await claimOf(workflowId, workspace), isLive, stateDirectories });
}

function claimedIds(directory: string): string[] {
  const text = readFileSync(path.join(directory, 'workspace-claims.json'), 'utf8');
  return (JSON.parse(text) as { claims: Array<{ workflowId: string }> }).claims.map(
    (entry) => entry.workflowId,
  );
}

function refusal(outcome: Awaited<ReturnType<typeof claimWorkspace>>): string {
  assert.equal(outcome.ok, false, 'refused');
  const line = outcome.ok ? '' : outcome.line;
  assert.doesNotMatch(line, /\n/, 'one line');
  return line;
}

test("the first root itself (it holds the registry in its .keel-state) is refused; its siblings' claims stand", async () => {
  const base = tempDirectory('keel-claims-root-');
  mkdirSync(path.join(base, 'b'));
  const directory = registryDirectory('h1', [base]);
  assert.deepEqual(await claimIn(directory, 'B', path.join(base, 'b')), { ok: true });
  const line = refusal(await claimIn(directory, 'R', base));
  assert.match(line, /contains .*\.keel-state, keel's state directory/);
  assert.deepEqual(claimedIds(directory), ['B'], 'the refused goal is not recorded');
});

test('a workspace holding a registry kept in KEEL_STATE_DIRECTORY (no roots) is refused', async () => {
  const base = tempDirectory('keel-claims-state-');
  const previous = process.env.KEEL_STATE_DIRECTORY;
  process.env.KEEL_STATE_DIRECTORY = path.join(base, 'state');
  try {
    const directory = registryDirectory('h1', []);
    mkdirSync(path.join(base, 'app'));
    assert.deepEqual(await claimIn(directory, 'A', path.join(base, 'app')), { ok: true });
    assert.match(
      refusal(await claimIn(directory, 'R', base)),
      /keel-workspace-claims-h1, keel's state directory/,
    );
    assert.match(refusal(await claimIn(directory, 'S', path.join(base, 'state'))), /keel's state directory/);
  } finally {
    if (previous === undefined) delete process.env.KEEL_STATE_DIRECTORY;
    else process.env.KEEL_STATE_DIRECTORY = previous;
  }
});

test("a workspace holding another root's .keel-state (the root itself) is refused", async () => {
  const first = tempDirectory('keel-claims-first-');
  const second = tempDirectory('keel-claims-second-');
  const directory = registryDirectory('h1', [first, second]);
  const stateDirectories = [path.join(first, '.keel-state'), path.join(second, '.keel-state')];
  const line = refusal(await claimIn(directory, 'R', second, stateDirectories));
  assert.match(line, new RegExp(`contains ${second}/\\.keel-state, keel's state directory`));
  mkdirSync(path.join(second, 'app'));
  assert.deepEqual(await claimIn(directory, 'A', path.join(second, 'app'), stateDirectories), { ok: true });
});

test('a workspace named like the registry file cannot put its state on the registry', async () => {
  const base = tempDirectory('keel-claims-name-');
  const directory = registryDirectory('h1', [base]);
  for (const name of ['workspace-claims.json', 'workspace-claims.json.lock']) {
    mkdirSync(path.join(base, name));
    const line = refusal(await claimIn(directory, name, path.join(base, name)));
    assert.match(
      line,
      /where keel keeps its workspace claims .*workspace-claims\.json\): rename the directory/,
    );
  }
  mkdirSync(path.join(base, 'workspace-claims.jsonx'));
  assert.deepEqual(await claimIn(directory, 'X', path.join(base, 'workspace-claims.jsonx')), { ok: true });
  assert.deepEqual(claimedIds(directory), ['X'], 'the registry is still a readable file');
});
