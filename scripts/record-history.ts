/**
 * Records the history of a representative goal (planning, a checkpoint, an approval, a budget
 * warning, a backtrack) into test/fixtures/histories/, for the replay test that guards
 * determinism. Run it when a deliberate, versioned change to the workflow makes the old history
 * obsolete: `node --import tsx scripts/record-history.ts`.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../src/workflows/goal/goal-workflow';
import { approveSignal, goalStatusQuery } from '../src/workflows/goal/messages';
import { createHarness, eventually, stopOwnServer, tempDirectory } from '../test/support/temporal';
import {
  REPRESENTATIVE_GOAL,
  REPRESENTATIVE_WORKFLOW_ID,
  representativeScenario,
} from '../test/fixtures/representative-goal';

async function main(): Promise<void> {
  const harness = await createHarness({ scenarios: [representativeScenario] });
  try {
    const workflowId = REPRESENTATIVE_WORKFLOW_ID;
    await harness.withWorker(async () => {
      const handle = await harness.client.workflow.start(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId,
        args: [{ ...REPRESENTATIVE_GOAL, workspace: tempDirectory('keel-record-') }],
      });
      const callId = await eventually(
        async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId,
      );
      await handle.signal(approveSignal, { callId, approver: 'recorder' });
      await handle.result();
      const file = path.resolve(__dirname, '../test/fixtures/histories/representative-goal.json');
      writeFileSync(file, JSON.stringify(await handle.fetchHistory()));
      console.log(`wrote ${file}`);
    });
  } finally {
    await harness.close();
    await stopOwnServer();
  }
}

void main();
