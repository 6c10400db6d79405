import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { goalResult } from '../../src/client/goal-client';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approveSignal, denySignal, goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import { createHarness, eventually, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

// Issue 44: a command's text need not name what it changes. On its copy-on-write layer an edit
// needs no human (only a deletion does), so after `rm -rf build` was denied a disguised truncate
// emptied build/a.txt unasked. The layer now checks what it would change against the goal's
// denials before applying, and holds such a call for a human, saying which path was refused.

const shell = (command: string) => ({ name: 'run_command', input: { command } });
// nothing in its words names build/a.txt: only the layer can tell
const disguised = 'd=build; timeout 5 truncate -s0 "$d/a.txt"';

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'layer-denied',
        match: 'GOAL-LAYER-DENIED',
        turns: [
          { toolCalls: [shell('rm -rf build')] },
          { toolCalls: [shell(disguised)] },
          { toolCalls: [shell('echo new > other.txt')] },
          { text: 'layer-denied finished' },
        ],
      },
      {
        // Issue 44 review: each spelling of one denied deletion was a new intent for the guard.
        name: 'layer-respelled',
        match: 'GOAL-LAYER-RESPELLED',
        turns: [
          { toolCalls: [shell('d=bu; rm -rf "${d}ild"')] },
          { toolCalls: [shell('e=bui; rm -rf "${e}ld"')] },
          { toolCalls: [shell('f=buil; rm -rf "${f}d"')] },
          { text: 'layer-respelled finished' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

test('a disguised truncate of a denied path waits for a human on its layer; other paths apply as before', async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory('keel-ws-');
    mkdirSync(path.join(workspace, 'build'));
    const fileA = path.join(workspace, 'build', 'a.txt');
    writeFileSync(fileA, 'built\n');
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `goal-layer-denied-${Date.now()}`,
      args: [{ goal: 'GOAL-LAYER-DENIED: clean up', workspace, sandbox: { network: false } }],
    });
    const pendingAfter = (seen: readonly string[]) =>
      eventually(async () => {
        const view = await handle.query(goalStatusQuery);
        return view.pendingApprovals.find((approval) => !seen.includes(approval.callId));
      }, 20_000);

    const deletion = await pendingAfter([]);
    assert.equal(deletion.summary, 'run_command: rm -rf build');
    await handle.signal(denySignal, { callId: deletion.callId, approver: 'carol', reason: 'keep build/' });

    const truncate = await pendingAfter([deletion.callId]);
    assert.ok(truncate.summary.includes('truncate'), truncate.summary);
    const requested = (await handle.query(ledgerQuery, {})).filter(
      (event) => event.kind === 'approval.requested',
    );
    assert.match(
      String(requested[1]?.data.whyItWaits),
      /it would change build\/a\.txt, which a human refused/,
      JSON.stringify(requested[1]?.data),
    );
    assert.equal(readFileSync(fileA, 'utf8'), 'built\n', 'its change is held, not applied');
    await handle.signal(approveSignal, { callId: truncate.callId, approver: 'carol', reason: 'fine' });

    const result = await goalResult(handle);
    assert.equal(result.status, 'completed', result.reason);
    assert.equal(readFileSync(fileA, 'utf8'), '', 'applied once a human approved it');
    assert.equal(
      readFileSync(path.join(workspace, 'other.txt'), 'utf8'),
      'new\n',
      'other paths apply unasked',
    );
    assert.equal(result.counters.approvalsRequested, 2, 'the write to other.txt asked nobody');
  });
});

test('respellings of a denied deletion are one intent by the changes their layer held: the denials guard stops the third', async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory('keel-ws-');
    mkdirSync(path.join(workspace, 'build'));
    writeFileSync(path.join(workspace, 'build', 'a.txt'), 'built\n');
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `goal-layer-respelled-${Date.now()}`,
      args: [{ goal: 'GOAL-LAYER-RESPELLED: clean up', workspace, sandbox: { network: false } }],
    });
    const seen: string[] = [];
    for (let denial = 1; denial <= 3; denial++) {
      const pending = await eventually(async () => {
        const view = await handle.query(goalStatusQuery);
        return view.pendingApprovals.find((approval) => !seen.includes(approval.callId));
      }, 20_000);
      seen.push(pending.callId);
      await handle.signal(denySignal, { callId: pending.callId, approver: 'carol', reason: 'keep build/' });
    }
    const result = await goalResult(handle);
    assert.equal(result.status, 'stuck', result.reason);
    const stops = (await handle.query(ledgerQuery, {})).filter((event) => event.kind === 'guard.stopped');
    assert.equal(stops[0]?.data.guard, 'denials', JSON.stringify(stops[0]?.data));
    assert.equal(stops[0]?.data.denials, 3);
    assert.equal(readFileSync(path.join(workspace, 'build', 'a.txt'), 'utf8'), 'built\n');
  });
});
