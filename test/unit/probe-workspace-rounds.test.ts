import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs/promises';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { createProbeWorkspaceActivity } from '../../src/activities/hosts/probe-workspace';
import { tempDirectory } from '../support/temp-directory';

// Issue 41's lost probes: every file-system request waits behind all the file work queued in
// libuv's thread pool, so on a busy worker a probe's latency is its number of *rounds* of
// requests times the queue's wait. The probe asked up to a dozen one after another (a missing
// path under roots: each parent, each root, twice) and outlived its timeout; now it asks in at
// most two rounds. Here every stat and realpath waits at a gate the test opens round by round.

type Gate = { rounds: number; restore: () => void };

function gateFileRequests(): Gate & { waiting: Array<() => void> } {
  const waiting: Array<() => void> = [];
  const originals = { stat: fs.stat, realpath: fs.realpath };
  const gated =
    <Args extends unknown[], Result>(call: (...args: Args) => Promise<Result>) =>
    (...args: Args): Promise<Result> =>
      new Promise<void>((resolve) => waiting.push(resolve)).then(() => call(...args));
  fs.stat = gated(originals.stat) as typeof fs.stat;
  fs.realpath = gated(originals.realpath) as typeof fs.realpath;
  return {
    waiting,
    rounds: 0,
    restore: () => Object.assign(fs, originals),
  };
}

/** Opens the gate for everything waiting at it, round after round, until `work` is done. */
async function countRounds<T>(work: (gate: Gate) => Promise<T>): Promise<{ rounds: number; result: T }> {
  const gate = gateFileRequests();
  try {
    let done = false;
    const running = work(gate).finally(() => {
      done = true;
    });
    while (!done) {
      await sleep(10); // every request of this round is queued by now
      const round = gate.waiting.splice(0);
      if (round.length > 0) gate.rounds += 1;
      for (const open of round) open();
    }
    return { rounds: gate.rounds, result: await running };
  } finally {
    gate.restore();
  }
}

test('a probe asks its file-system questions in at most two rounds, however deep the missing path', async () => {
  const root = tempDirectory('keel-probe-rounds-');
  const roots = [path.join(root, 'a'), path.join(root, 'b')];
  for (const directory of roots) mkdirSync(directory);
  mkdirSync(path.join(roots[0] ?? '', 'app'));
  const probe = createProbeWorkspaceActivity({ hostId: 'vm', workspaceRoots: roots });

  const present = await countRounds(() => probe.probeWorkspace({ workspace: path.join(root, 'a', 'app') }));
  assert.deepEqual(present.result, { hostId: 'vm', state: 'present', relative: 'app' });
  assert.equal(present.rounds, 1, 'a present workspace: one round');

  const deep = path.join(root, 'a', 'x', 'y', 'z', 'app');
  const missing = await countRounds(() => probe.probeWorkspace({ workspace: deep }));
  assert.deepEqual(missing.result, {
    hostId: 'vm',
    state: 'missing',
    relative: path.join('x', 'y', 'z', 'app'),
  });
  assert.ok(missing.rounds <= 2, `a missing workspace took ${missing.rounds} rounds`);

  const outside = await countRounds(() => probe.probeWorkspace({ workspace: path.join(root, 'c', 'app') }));
  assert.deepEqual(outside.result, { hostId: 'vm', state: 'outside-roots' });
  assert.ok(outside.rounds <= 2, `a path outside the roots took ${outside.rounds} rounds`);
});
