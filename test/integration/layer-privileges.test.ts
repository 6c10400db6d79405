import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { lstatSync, mkdirSync, readdirSync, writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { goalStatusQuery } from '../../src/workflows/goal/messages';
import { createHarness, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

/**
 * Issue 43, item 1, end to end on the dev server with the scripted model: the audit's command,
 * run by an unapproved goal in its copy-on-write layer, reaches the host without a setuid or
 * setgid bit, with no approval asked; the user's own setuid file beside it is left as it was.
 */

const AUDIT_COMMAND = 'cp /bin/dash helper && chmod 4755 helper && chmod 2777 shared';
let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'setuid',
        match: 'GOAL-SETUID',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: AUDIT_COMMAND } }] },
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

const modeOf = (file: string): number => lstatSync(file).mode & 0o7777;

test('cp /bin/dash helper && chmod 4755 helper && chmod 2777 shared: applied without s-bits, no approval', async () => {
  await harness.withWorker(async () => {
    const workspace = tempDirectory('keel-setuid-');
    mkdirSync(path.join(workspace, 'shared'));
    chmodSync(path.join(workspace, 'shared'), 0o755);
    writeFileSync(path.join(workspace, 'mine'), '#!/bin/sh\nid\n');
    chmodSync(path.join(workspace, 'mine'), 0o4755);
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId: `setuid-${Date.now()}`,
      args: [{ goal: 'GOAL-SETUID: make a helper', workspace }],
    });
    const result = await handle.result();
    assert.equal(result.status, 'completed');
    assert.equal((await handle.query(goalStatusQuery)).pendingApprovals.length, 0);
    assert.ok(readdirSync(workspace).includes('helper'), 'the layer was applied');
    assert.equal(modeOf(path.join(workspace, 'helper')), 0o755);
    assert.equal(modeOf(path.join(workspace, 'shared')), 0o777);
    assert.equal(lstatSync(path.join(workspace, 'helper')).uid, process.getuid?.() ?? 0);
    assert.equal(modeOf(path.join(workspace, 'mine')), 0o4755, "the user's own setuid file is untouched");
  });
});
