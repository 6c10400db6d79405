import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { startDevServer, type DevServer } from '../../src/dev-server/dev-server';
import { runFleet } from '../support/model-fleet';

/**
 * Rate limits shared by the fleet (issue 42): three workers, ten goals of 1-3 model turns, one
 * API key limited to 120 requests a minute (the scripted model behind rate-limit.ts). With
 * KEEL_MODEL_REQUESTS_PER_MINUTE at that limit the fleet stays under it; without, it bounces off.
 *
 * A dev server of its own, with one partition per task queue: Temporal divides a queue's rate
 * among its partitions (four by default), and only one partition holds the fleet to the whole
 * limit (docs/how-a-goal-runs.md, Rate limits shared by the fleet).
 */

const LIMIT = 120;
let server: DevServer;

before(async () => {
  server = await startDevServer({
    ephemeral: true,
    dynamicConfig: { 'matching.numTaskqueueReadPartitions': 1, 'matching.numTaskqueueWritePartitions': 1 },
  });
});

after(async () => {
  await server.stop();
});

test(
  'a fleet holding the limit together stays under it; without, it bounces off',
  { timeout: 180_000 },
  async () => {
    const shared = await runFleet({ address: server.address, requestsPerMinute: LIMIT, shared: true });
    assert.equal(shared.completed, 10, 'every goal completes under the shared limit');
    const refused = shared.limited / shared.requests;
    const timeline = shared.timeline
      .map((request) => `${request.limited ? '429@' : ''}${request.atMs}`)
      .join(' ');
    assert.ok(refused < 0.05, `${shared.limited} of ${shared.requests} requests were refused: ${timeline}`);
    assert.ok(shared.limitUsed >= 0.75, `the fleet used ${Math.round(shared.limitUsed * 100)}% of the limit`);

    const alone = await runFleet({ address: server.address, requestsPerMinute: LIMIT, shared: false });
    assert.equal(alone.completed, 10, 'the 429s are waited out');
    assert.ok(alone.limited >= 10, `without the shared limit only ${alone.limited} requests were refused`);
  },
);
