/**
 * Records the history of a goal into test/fixtures/histories/, for the replay tests that guard
 * determinism. Run it when a deliberate, versioned change to the workflow makes an old history
 * obsolete, or to keep one recorded just before such a change:
 *
 *   node --import tsx scripts/record-history.ts             # representative-goal.json
 *   node --import tsx scripts/record-history.ts tool-turns  # tool-turns.json
 *   node --import tsx scripts/record-history.ts escalation  # escalation-call-ids.json: held changes, keel's call ids
 *   node --import tsx scripts/record-history.ts notified    # notified-goal.json: the worker's notices and reminder
 *
 * A kind may be followed by another FILE.json name, to keep a history recorded before a change.
 *
 * The representative goal has planning, a checkpoint, an approval, a budget warning and a
 * backtrack; the tool-turns goal (test/fixtures/tool-turns-goal.ts) has the start's lookups and
 * every kind of tool turn.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import type { WorkflowHandle } from '@temporalio/client';
import { goalWorkflow } from '../src/workflows/goal/workflow';
import type { GoalInput } from '../src/workflows/goal/lifecycle/input';
import { approveSignal, goalStatusQuery } from '../src/workflows/goal/messages';
import type { ScenarioInput } from '../src/scripted-model/scenario';
import { createHarness, stopOwnServer, tempDirectory } from '../test/support/temporal';
import {
  REPRESENTATIVE_GOAL,
  REPRESENTATIVE_WORKFLOW_ID,
  representativeScenario,
} from '../test/fixtures/representative-goal';
import {
  ESCALATION_FILES,
  ESCALATION_GOAL,
  ESCALATION_WORKFLOW_ID,
  escalationScenario,
} from '../test/fixtures/escalation-goal';
import {
  TOOL_TURNS_FILES,
  TOOL_TURNS_GOAL,
  TOOL_TURNS_WORKFLOW_ID,
  toolTurnsScenario,
} from '../test/fixtures/tool-turns-goal';
import {
  NOTIFIED_GOAL,
  NOTIFIED_WORKFLOW_ID,
  notifiedReceivers,
  notifiedScenario,
  untilReminded,
} from '../test/fixtures/notified-goal';
import type { NotifierSettings } from '../src/activities/notifications/notifier-settings';

interface Recording {
  scenario: ScenarioInput;
  workflowId: string;
  goal: Omit<GoalInput, 'workspace'>;
  files: Readonly<Record<string, string>>;
  file: string;
  /** Receivers the worker's notification channels point at, for the recording's length. */
  receivers?: () => Promise<{ notifications: NotifierSettings; close(): Promise<void> }>;
  /** What must have happened before a waiting call is approved. */
  beforeApproving?: (handle: WorkflowHandle<typeof goalWorkflow>) => Promise<void>;
}

function recordingOf(kind: string | undefined, file: string | undefined): Recording {
  const histories = path.resolve(__dirname, '../test/fixtures/histories');
  if (kind === undefined || kind === 'representative') {
    return {
      scenario: representativeScenario,
      workflowId: REPRESENTATIVE_WORKFLOW_ID,
      goal: REPRESENTATIVE_GOAL,
      files: {},
      file: path.join(histories, file ?? 'representative-goal.json'),
    };
  }
  if (kind === 'tool-turns') {
    return {
      scenario: toolTurnsScenario,
      workflowId: TOOL_TURNS_WORKFLOW_ID,
      goal: TOOL_TURNS_GOAL,
      files: TOOL_TURNS_FILES,
      file: path.join(histories, file ?? 'tool-turns.json'),
    };
  }
  if (kind === 'escalation') {
    return {
      scenario: escalationScenario,
      workflowId: ESCALATION_WORKFLOW_ID,
      goal: ESCALATION_GOAL,
      files: ESCALATION_FILES,
      file: path.join(histories, file ?? 'escalation-call-ids.json'),
    };
  }
  if (kind === 'notified') {
    return {
      scenario: notifiedScenario,
      workflowId: NOTIFIED_WORKFLOW_ID,
      goal: NOTIFIED_GOAL,
      files: {},
      file: path.join(histories, file ?? 'notified-goal.json'),
      receivers: notifiedReceivers,
      beforeApproving: untilReminded,
    };
  }
  throw new Error(
    'usage: record-history.ts [representative | tool-turns | escalation | notified] [FILE.json]',
  );
}

/** Approves every call that waits for a human, as it comes, until the goal ends. */
async function approveAndFinish(
  handle: WorkflowHandle<typeof goalWorkflow>,
  beforeApproving?: Recording['beforeApproving'],
): Promise<void> {
  let done = false;
  const result = handle.result().finally(() => (done = true));
  const approved = new Set<string>();
  while (!done) {
    const pending = (await handle.query(goalStatusQuery).catch(() => undefined))?.pendingApprovals ?? [];
    for (const { callId } of pending) {
      if (approved.has(callId)) continue;
      approved.add(callId);
      await beforeApproving?.(handle);
      await handle.signal(approveSignal, { callId, approver: 'recorder' });
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await result;
}

async function main(): Promise<void> {
  const recording = recordingOf(process.argv[2], process.argv[3]);
  const receivers = await recording.receivers?.();
  const harness = await createHarness({
    scenarios: [recording.scenario],
    ...(receivers === undefined ? {} : { notifications: receivers.notifications }),
  });
  try {
    await harness.withWorker(async () => {
      const workspace = tempDirectory('keel-record-');
      for (const [name, content] of Object.entries(recording.files))
        writeFileSync(path.join(workspace, name), content);
      const handle = await harness.client.workflow.start(goalWorkflow, {
        taskQueue: harness.taskQueue,
        workflowId: recording.workflowId,
        args: [{ ...recording.goal, workspace }],
      });
      await approveAndFinish(handle, recording.beforeApproving);
      writeFileSync(recording.file, JSON.stringify(await handle.fetchHistory()));
      console.log(`wrote ${recording.file}`);
    });
  } finally {
    await harness.close();
    await receivers?.close();
    await stopOwnServer();
  }
}

void main();
