import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import { createHarness, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';
import { modelActivity } from '../../src/client/model-progress';
import { renderWatchView } from '../../src/cli/watch-view';
import { goalStatusQuery } from '../../src/workflows/goal/messages';

/**
 * Goals at work (issue 41, goals progress independently): with two places, six goals started
 * together go through the worker two at a time, first come, first served: at no moment are more
 * than two goals between their first model request and their last. Without the bound the same six
 * take turns, all of them at work at once, and finish together.
 */
const GOALS = 6;
const PLACES = 2;
const TURNS = 4; // three tool calls, then the answer
/**
 * Each tool-call answer takes this long, so a goal is at work at least 3 s: started together, the
 * six overlap without a bound even on a loaded machine (with instant answers a busy CI worker ran
 * them nearly one after another, two at a time, and the control failed).
 */
const ANSWER_MS = 1000;

function scenario(goal: number) {
  const list = { delayMs: ANSWER_MS, toolCalls: [{ name: 'list_dir', input: { path: '.' } }] };
  return {
    name: `goal-${goal}`,
    match: `AT-WORK-${goal}-GOAL`,
    turns: [...Array.from({ length: TURNS - 1 }, () => list), { text: `goal ${goal} done` }],
  };
}

let bounded: Harness;
let unbounded: Harness;

before(async () => {
  const scenarios = Array.from({ length: GOALS }, (_, index) => scenario(index + 1));
  bounded = await createHarness({ scenarios, goalsAtWork: PLACES });
  unbounded = await createHarness({ scenarios, goalsAtWork: false });
});

after(async () => {
  await bounded.close();
  await unbounded.close();
  await stopOwnServer();
});

/** `keel watch`'s line for the first goal seen waiting for a place, while the goals run. */
async function watchWaiting(harness: Harness, running: () => boolean): Promise<string | undefined> {
  while (running()) {
    for (let goal = 1; goal <= GOALS; goal++) {
      const workflowId = `${harness.taskQueue}-goal-${goal}`;
      const handle = harness.client.workflow.getHandle(workflowId);
      const description = await handle.describe().catch(() => undefined);
      if (description === undefined) continue;
      const { progress } = await modelActivity(harness.client, description);
      if (progress?.waitingForPlace === undefined) continue;
      const view = await handle.query(goalStatusQuery);
      return renderWatchView(view, { workflowId, forming: progress }).find((line) =>
        line.includes('a place'),
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return undefined;
}

/** Runs the six goals at once; returns the most goals that were at work at one time. */
async function mostAtWorkTogether(
  harness: Harness,
  watch: boolean,
): Promise<{ most: number; watched: string | undefined }> {
  let running = true;
  const watched = watch ? watchWaiting(harness, () => running) : Promise.resolve(undefined);
  await harness.withWorker(async () => {
    const results = await Promise.all(
      Array.from({ length: GOALS }, async (_, index) => {
        const workspace = tempDirectory('keel-at-work-');
        writeFileSync(path.join(workspace, 'notes.md'), 'a file to list\n');
        return harness.client.workflow.execute(goalWorkflow, {
          taskQueue: harness.taskQueue,
          workflowId: `${harness.taskQueue}-goal-${index + 1}`,
          args: [{ goal: `AT-WORK-${index + 1}-GOAL: list the workspace, then say done`, workspace }],
        });
      }),
    );
    assert.deepEqual(
      results.map((result) => result.status),
      Array.from({ length: GOALS }, () => 'completed'),
    );
  });
  running = false;
  // Each goal's span: from its first model request to its last (the answer that asks for no tool).
  const spans = new Map<string, { from: number; to: number }>();
  for (const request of harness.scripted.requests) {
    if (request.turnIndex < 0) continue;
    const span = spans.get(request.scenario);
    spans.set(request.scenario, {
      from: Math.min(span?.from ?? request.receivedAt, request.receivedAt),
      to: Math.max(span?.to ?? request.receivedAt, request.receivedAt),
    });
  }
  assert.equal(spans.size, GOALS);
  const moments = [...spans.values()].map((span) => span.from);
  const most = Math.max(
    ...moments.map(
      (moment) => [...spans.values()].filter((span) => span.from <= moment && moment <= span.to).length,
    ),
  );
  return { most, watched: await watched };
}

test(
  'with two places, six goals go through two at a time and the waiting ones say so; without a bound all six take turns',
  { timeout: 180_000 },
  async () => {
    const withBound = await mostAtWorkTogether(bounded, true);
    assert.ok(withBound.most <= PLACES, `${withBound.most} goals were at work at once with ${PLACES} places`);
    // A waiting goal says so where people look: its model call's heartbeat, as `keel watch` shows it.
    assert.match(
      withBound.watched ?? 'no goal was seen waiting',
      /^model call waits for a place: the worker's 2 goals at work are taken, \d+ goals? ahead \(KEEL_GOALS_AT_WORK\)$/,
    );
    const withoutBound = await mostAtWorkTogether(unbounded, false);
    assert.ok(
      withoutBound.most > PLACES,
      `only ${withoutBound.most} goals were at work at once without a bound`,
    );
  },
);
