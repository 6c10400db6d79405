import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { approveSignal, goalStatusQuery } from '../../src/workflows/goal/messages';
import { changeListBytes, HELD_AT_ONCE_MAX_BYTES } from '../../src/workflows/approvals/held-at-once';
import { createHarness, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

/**
 * Issue 43, approvers see all they approve: one turn of three commands, each deleting about
 * 430 KB worth of paths. Every held list lives in the goal's state (which the status query and a
 * continue-as-new carry, Temporal refusing payloads over 2 MB), so the third, which would take
 * the turn's held lists past 1 MiB, is discarded: nothing of it applied, the model told why;
 * the two held are shown whole and applied once approved.
 */

// Long names, so few files weigh enough: each deletion on a layer takes its time on a busy machine.
const FILES_PER_DIRECTORY = 2_000;
const LONG = 'a-long-file-name-'.repeat(12);
const DIRECTORIES = ['d1', 'd2', 'd3'];

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'crowded',
        match: 'GOAL-HELD-AT-ONCE',
        turns: [
          {
            toolCalls: DIRECTORIES.map((directory) => ({
              name: 'run_command',
              input: { command: `rm -f ${directory}/*.txt`, timeoutSeconds: 600 },
            })),
          },
          { text: 'done' },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

test("a turn's held change lists stay within 1 MiB: the one that would pass it is discarded, with why", async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory('keel-held-at-once-');
    for (const directory of DIRECTORIES) {
      mkdirSync(path.join(workspace, directory));
      for (let index = 0; index < FILES_PER_DIRECTORY; index += 1)
        writeFileSync(path.join(workspace, directory, `${LONG}-${String(index).padStart(5, '0')}.txt`), '');
    }
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `held-at-once-${Date.now()}`,
      args: [{ goal: 'GOAL-HELD-AT-ONCE: clean up', workspace }],
    });
    // Each list alone is within the per-call bound; any two within 1 MiB, all three beyond it.
    const approved: string[] = [];
    const deadline = Date.now() + 300_000;
    for (;;) {
      const view = await handle.query(goalStatusQuery); // answers: the state stays small enough
      const last = JSON.stringify({
        phase: view.phase,
        pending: view.pendingApprovals.map((call) => call.callId),
      });
      for (const call of view.pendingApprovals) {
        if (approved.includes(call.callId)) continue;
        const bytes = changeListBytes(call.heldChanges ?? { created: [], modified: [], deleted: [] });
        assert.ok(bytes > 350_000 && bytes < 512 * 1024, `a list of ${bytes} bytes`);
        assert.equal(call.heldChanges?.deleted.length, FILES_PER_DIRECTORY, 'listed whole');
        approved.push(call.callId);
        await handle.signal(approveSignal, { callId: call.callId, approver: 'ann' });
      }
      if ((await handle.describe()).status.name !== 'RUNNING') break;
      assert.ok(Date.now() < deadline, `the goal still runs: ${last}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    const sent = harness.scripted.requests.find((r) => r.scenario === 'crowded' && r.turnIndex === 1);
    const toolResults = JSON.stringify(sent?.body.messages?.at(-1));
    assert.equal(
      approved.length,
      2,
      `two lists were held for a human, the third never asked: ${toolResults.slice(0, 3000)}`,
    );
    const left = DIRECTORIES.map((directory) => readdirSync(path.join(workspace, directory)).length);
    assert.equal(
      left.filter((count) => count === 0).length,
      2,
      `two directories emptied: ${left.join(', ')}`,
    );
    assert.equal(left.filter((count) => count === FILES_PER_DIRECTORY).length, 1, 'one untouched');
    assert.match(
      toolResults,
      /Not applied: its changes would wait for a human beside those 2 other calls of this turn hold, and together their lists of changes \(\d+ KiB\) pass the 1024 KiB keel holds for approvers at once/,
    );
    assert.equal(HELD_AT_ONCE_MAX_BYTES, 1024 * 1024);
  });
});
