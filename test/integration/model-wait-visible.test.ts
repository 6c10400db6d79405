import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import {
  createHarness,
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';

/**
 * Issue 42 item 6: while the model API turns a goal away, `keel status` says so. The scripted
 * endpoint answers 429 with a retry-after of a minute (bad-days.ts), so the goal's call waits for its
 * second attempt long enough to ask the CLI twice: once with the worker running (the status query
 * answers, the pending activity adds the wait) and once after it stopped (the server's record).
 */

const KEEL = path.resolve(__dirname, '../../bin/keel.js');
// Under a minute with the first retry's jitter (at most 1 s) added, so the countdown reads in
// seconds ("next try in 50 s"), never "1 m".
const RETRY_AFTER_S = 50;
const PATIENCE_MS = 5 * 60_000;

let harness: Harness;
let address: string;

before(async () => {
  address = await temporalAddress();
  harness = await createHarness({
    scenarios: [
      {
        name: 'wait-visible',
        match: 'GOAL-WAIT-VISIBLE',
        turns: [
          {
            text: 'answered',
            faults: [{ kind: 'rate-limited', retryAfterSeconds: RETRY_AFTER_S, requests: 3 }],
          },
        ],
      },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

function keel(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [KEEL, '--address', address, ...args],
      { timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr });
      },
    );
  });
}

const WAIT_LINE =
  /^waiting on the model: rate limited by the API, next try in (\d+) s \(attempt 2, waiting (\d+) s of 5 m\)$/m;

test(
  'a goal turned away by 429s: keel status and --json say rate limited, the next try, the attempt and the patience, with a worker and without',
  { timeout: 120_000 },
  async () => {
    const workflowId = `model-wait-visible-${Date.now()}`;
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [
        {
          goal: 'GOAL-WAIT-VISIBLE: answer',
          workspace: tempDirectory(),
          timing: { heartbeatTimeoutMs: 3000, streamSilenceMs: 1500, modelTimeoutMs: 3000 },
          model: { patienceMs: PATIENCE_MS },
        },
      ],
    });
    try {
      await harness.withWorker(async () => {
        // The first 429 has come back: Temporal holds attempt 2 until the retry-after is over.
        await eventually(async () => {
          const pending = (await handle.describe()).raw.pendingActivities ?? [];
          return pending.some(
            (activity) => activity.activityType?.name === 'callModel' && activity.attempt === 2,
          )
            ? true
            : undefined;
        });
        const status = await keel(['status', workflowId]);
        assert.equal(status.code, 0, status.stderr);
        const line = WAIT_LINE.exec(status.stdout);
        assert.ok(line, `no wait line in:\n${status.stdout}`);
        assert.ok(Number(line[1]) <= RETRY_AFTER_S + 1 && Number(line[1]) > 5, `next try in ${line[1]} s`);
        assert.match(
          status.stdout,
          /: running \(thinking\)\nwaiting on the model: /,
          'right under the phase',
        );

        const json = await keel(['status', workflowId, '--json']);
        assert.equal(json.code, 0, json.stderr);
        const view = JSON.parse(json.stdout) as { status: string; modelWait?: Record<string, unknown> };
        assert.equal(view.status, 'running');
        assert.deepEqual(
          {
            reason: view.modelWait?.reason,
            httpStatus: view.modelWait?.httpStatus,
            attempt: view.modelWait?.attempt,
            state: view.modelWait?.state,
            patienceMs: view.modelWait?.patienceMs,
            type: (view.modelWait?.lastFailure as { type?: string } | undefined)?.type,
          },
          {
            reason: 'rate-limited',
            httpStatus: 429,
            attempt: 2,
            state: 'waiting',
            patienceMs: PATIENCE_MS,
            type: 'ModelRateLimited',
          },
        );
        assert.ok(Date.parse(String(view.modelWait?.nextAttemptAt)) > Date.now(), 'the next try is ahead');
        assert.match(
          String(view.modelWait?.line),
          /^rate limited by the API, next try in \d+ s \(attempt 2, waiting \d+ s of 5 m\)$/,
        );
      });

      // The worker has stopped; the call still waits, and the server's record says on what.
      const record = await keel(['status', workflowId]);
      assert.equal(record.code, 3, `no worker: exit 3\n${record.stdout}\n${record.stderr}`);
      assert.match(record.stdout, WAIT_LINE);
      const recordJson = JSON.parse((await keel(['status', workflowId, '--json'])).stdout) as {
        source: string;
        pendingActivities: Array<{ type: string; modelWait?: { reason: string; attempt: number } }>;
      };
      assert.equal(recordJson.source, 'server-record');
      assert.deepEqual(
        recordJson.pendingActivities.map((activity) => [
          activity.type,
          activity.modelWait?.reason,
          activity.modelWait?.attempt,
        ]),
        [['callModel', 'rate-limited', 2]],
      );
    } finally {
      await handle.terminate('test over').catch(() => undefined);
    }
  },
);
