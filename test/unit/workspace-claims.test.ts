import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { claimOf, claimWorkspace, registryDirectory } from '../../src/activities/hosts/workspace-claims';
import { WorkspaceClaimsFailureType } from '../../src/activities/hosts/workspace-claims-failures';
import { tempDirectory } from '../support/temp-directory';

function setup() {
  const base = tempDirectory('keel-claims-');
  mkdirSync(path.join(base, 'nest', 'sub'), { recursive: true });
  const directory = registryDirectory('h1', [base]);
  const running = new Set<string>();
  const asked: string[] = [];
  const isLive = (workflowId: string) => {
    asked.push(workflowId);
    return Promise.resolve(running.has(workflowId));
  };
  const claim = async (workflowId: string, relative: string) => {
    running.add(workflowId);
    return claimWorkspace({ directory, claim: await claimOf(workflowId, path.join(base, relative)), isLive });
  };
  return { base, directory, running, asked, claim };
}

test("the registry lies in the first root's .keel-state, beside the workspaces; without roots in the temp directory", () => {
  assert.equal(registryDirectory('h1', ['/w/', '/v']), '/w/.keel-state');
  assert.match(registryDirectory('a/b', []), /keel-workspace-claims-a%2Fb$/);
});

test("a goal inside a running goal's workspace is refused with one line, and the reverse", async () => {
  const { claim } = setup();
  assert.deepEqual(await claim('A', 'nest'), { ok: true });
  const inner = await claim('B', 'nest/sub');
  assert.equal(inner.ok, false);
  assert.match(
    !inner.ok ? inner.line : '',
    /nest\/sub lies inside .*nest, the workspace of running goal A: workspaces never nest/,
  );
  assert.doesNotMatch(!inner.ok ? inner.line : '', /\n/);
  const { claim: again } = setup();
  assert.deepEqual(await again('B', 'nest/sub'), { ok: true });
  const outer = await again('A', 'nest');
  assert.match(!outer.ok ? outer.line : '', /nest contains .*nest\/sub, the workspace of running goal B/);
});

test('a goal that ended (any way: its workflow no longer runs) holds nothing; its claim is dropped', async () => {
  const { claim, running, directory } = setup();
  await claim('A', 'nest');
  running.delete('A'); // completed, failed, cancelled or terminated: Temporal says it does not run
  assert.deepEqual(await claim('B', 'nest/sub'), { ok: true });
  const registry = JSON.parse(readFileSync(path.join(directory, 'workspace-claims.json'), 'utf8')) as {
    schemaVersion: number;
    claims: Array<{ workflowId: string }>;
  };
  assert.equal(registry.schemaVersion, 1);
  assert.deepEqual(
    registry.claims.map((entry) => entry.workflowId),
    ['B'],
  );
});

test("only the goals in the way are asked after, and a goal's own claim is renewed, not doubled", async () => {
  const { claim, asked, directory } = setup();
  await claim('A', 'nest');
  await claim('C', 'elsewhere');
  await claim('A', 'nest');
  assert.deepEqual(asked, [], 'nothing overlapped: nobody asked');
  await claim('B', 'nest/sub');
  assert.deepEqual(asked, ['A']);
  const registry = JSON.parse(readFileSync(path.join(directory, 'workspace-claims.json'), 'utf8')) as {
    claims: Array<{ workflowId: string }>;
  };
  assert.deepEqual(registry.claims.map((entry) => entry.workflowId).sort(), ['A', 'C']);
});

test('two goals claiming nested workspaces at once: exactly one passes (the lock orders them)', async () => {
  for (let round = 0; round < 5; round++) {
    const { claim } = setup();
    const outcomes = await Promise.all([
      claim('A', 'nest'),
      claim('B', 'nest/sub'),
      claim('C', 'nest/sub/deeper'),
    ]);
    assert.equal(outcomes.filter((outcome) => outcome.ok).length, 1, JSON.stringify(outcomes));
  }
});

test('many ended goals are pruned once the registry grows', async () => {
  const { claim, running, directory } = setup();
  for (let index = 0; index < 70; index++) {
    await claim(`old-${index}`, `ws-${index}`);
    running.delete(`old-${index}`);
  }
  await claim('live', 'nest');
  const registry = JSON.parse(readFileSync(path.join(directory, 'workspace-claims.json'), 'utf8')) as {
    claims: Array<{ workflowId: string }>;
  };
  // Pruned whenever more than 64 others stood: the ended ones before the last prune are gone.
  const ids = registry.claims.map((entry) => entry.workflowId);
  assert.ok(ids.length < 10, `${ids.length} claims kept`);
  assert.equal(ids.at(-1), 'live');
  assert.ok(!ids.includes('old-0'));
});

test("a registry that is not keel's (not JSON, or another schema) fails, typed and not retried, naming the file", async () => {
  for (const [text, why] of [
    ['{"claims": 3}', /not schema version 1/],
    ['{"schemaVersion": 1, "claims": [', /not JSON/],
  ] as const) {
    const { claim, directory } = setup();
    mkdirSync(directory, { recursive: true });
    const file = path.join(directory, 'workspace-claims.json');
    writeFileSync(file, text);
    await assert.rejects(claim('A', 'nest'), (error: unknown) => {
      assert.ok(error instanceof ApplicationFailure);
      assert.equal(error.type, WorkspaceClaimsFailureType.RegistryCorrupt);
      assert.equal(error.nonRetryable, true, 'a corrupt file does not mend itself');
      assert.ok(error.message.includes(`registry ${file} is not keel's`), error.message);
      assert.match(error.message, why);
      assert.doesNotMatch(error.message, /\n/);
      return true;
    });
  }
});

/** A claim made by a process of its own, as each replica of a host makes its own. */
function claimFromProcess(
  directory: string,
  workflowId: string,
  workspace: string,
  atMs: number,
): Promise<{ ok: boolean }> {
  const script = path.resolve(__dirname, '../support/claim-workspace-process.ts');
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', script, directory, workflowId, workspace, String(atMs)],
      { timeout: 60_000 },
      (error, stdout) =>
        error ? reject(new Error(error.message)) : resolve(JSON.parse(stdout) as { ok: boolean }),
    );
  });
}

test("replicas (processes sharing the host's disk) claiming nested workspaces at once: exactly one passes", async () => {
  const { base, directory, claim } = setup();
  // An ended goal's claim over them all: each process asks after it (half a second) before it
  // decides, so without the lock every process would decide on the same registry. Not the root
  // itself: it holds the registry, and is refused (workspace-claims-keel-state.test.ts).
  assert.deepEqual(await claim('ended', 'nest'), { ok: true });
  // All claim at one moment, well after the slowest process has started.
  const atMs = Date.now() + 6000;
  const workspaces = ['nest/sub', 'nest/sub/deeper', 'nest/sub/deeper/still', 'nest/sub/deeper/still/more'];
  const outcomes = await Promise.all(
    workspaces.map((relative, index) =>
      claimFromProcess(directory, `goal-${index}`, path.join(base, relative), atMs),
    ),
  );
  assert.equal(outcomes.filter((outcome) => outcome.ok).length, 1, JSON.stringify(outcomes));
});
