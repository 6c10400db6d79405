import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  callsCutOff,
  markCallRunning,
  runningCalls,
  untilNoCallRuns,
} from '../../src/activities/tools/running-calls';
import { workspaceStateDirectory } from '../../src/activities/hosts/workspace-state-directory';
import { tempDirectory } from '../support/temp-directory';

/**
 * The markers of calls running on a workspace (running-calls.ts, issue 48): a rewind's restore in
 * place waits for them; a marker with no call behind it never makes it wait.
 */

const workspaceIn = (prefix: string) => {
  const workspace = path.join(tempDirectory(prefix), 'ws');
  mkdirSync(workspace);
  return workspace;
};
const inAnHour = () => new Date(Date.now() + 3_600_000).toISOString();

test('a marked call is listed until it is unmarked; the wait ends then and counts it', async () => {
  const workspace = workspaceIn('keel-running-');
  const unmark = await markCallRunning(workspace, {
    workflowId: 'goal-a',
    callId: 'c1',
    deadline: inAnHour(),
  });
  assert.deepEqual(
    (await runningCalls(workspace)).map((call) => [call.workflowId, call.callId, call.pid]),
    [['goal-a', 'c1', process.pid]],
  );
  const seen: number[] = [];
  const waited = untilNoCallRuns(workspace, { pollMs: 10, waiting: (calls) => seen.push(calls.length) });
  await new Promise((resolve) => setTimeout(resolve, 60));
  await unmark();
  assert.deepEqual(await waited, { waitedForCalls: 1 });
  assert.ok(seen.length >= 2 && seen.every((count) => count === 1), String(seen));
  assert.deepEqual(await runningCalls(workspace), []);
  assert.deepEqual(await untilNoCallRuns(workspace), { waitedForCalls: 0 }, 'nothing running: no wait');
});

test('markers of a dead process, past their deadline, or unreadable are stale: removed, never waited for', async () => {
  const workspace = workspaceIn('keel-running-stale-');
  await markCallRunning(workspace, { workflowId: 'goal-a', callId: 'running', deadline: inAnHour() });
  const pastDeadline = new Date(Date.now() - 31_000).toISOString();
  await markCallRunning(workspace, { workflowId: 'goal-a', callId: 'late', deadline: pastDeadline });
  const withinGrace = new Date(Date.now() - 5_000).toISOString();
  await markCallRunning(workspace, { workflowId: 'goal-a', callId: 'ending', deadline: withinGrace });
  const directory = workspaceStateDirectory(workspace, 'running');
  writeFileSync(path.join(directory, 'half.json'), '{"pid": 12');
  const alive = (pid: number) => pid === process.pid;
  let calls = await runningCalls(workspace, { isAlive: alive });
  assert.deepEqual(calls.map((call) => call.callId).sort(), ['ending', 'running']);
  calls = await runningCalls(workspace, { isAlive: () => false });
  assert.deepEqual(calls, []);
  assert.deepEqual(readdirSync(directory), [], 'stale markers are removed');
});

test('the wait ends when its activity is cancelled', async () => {
  const workspace = workspaceIn('keel-running-cancel-');
  await markCallRunning(workspace, { workflowId: 'goal-a', callId: 'c1', deadline: inAnHour() });
  const abort = new AbortController();
  const waited = untilNoCallRuns(workspace, { pollMs: 10, signal: abort.signal });
  abort.abort(new Error('cancelled'));
  await assert.rejects(waited, /cancelled/);
});

test('calls cut off (dead process, past deadline, unreadable) are counted once, by whoever removes them', async () => {
  const workspace = workspaceIn('keel-running-cut-off-');
  await markCallRunning(workspace, { workflowId: 'goal-a', callId: 'running', deadline: inAnHour() });
  const pastDeadline = new Date(Date.now() - 31_000).toISOString();
  await markCallRunning(workspace, { workflowId: 'goal-a', callId: 'late', deadline: pastDeadline });
  writeFileSync(path.join(workspaceStateDirectory(workspace, 'running'), 'half.json'), '{"pid": 12');
  const alive = (pid: number) => pid === process.pid;
  const counts = await Promise.all([
    callsCutOff(workspace, { isAlive: alive }),
    callsCutOff(workspace, { isAlive: alive }),
  ]);
  assert.equal(counts[0] + counts[1], 2, `two scans at once count each marker once: ${counts.join(', ')}`);
  assert.equal(await callsCutOff(workspace, { isAlive: alive }), 0, 'removed: not counted again');
  assert.deepEqual(
    (await runningCalls(workspace, { isAlive: alive })).map((call) => call.callId),
    ['running'],
  );
  assert.equal(
    await callsCutOff(workspace, { isAlive: () => false }),
    1,
    'its process gone, the running one is cut off too',
  );
});
