import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { refund } from '../../examples/custom-tools/tools/refund';
import { tempDirectory } from '../support/temp-directory';

test("the example's small refund is safe to run again: a retried call (same goal and call id) appends nothing", async () => {
  const workspace = tempDirectory('keel-refund-');
  const context = (callId: string) =>
    ({
      workspace,
      goalId: 'goal-1',
      callId,
      idempotencyKey: undefined,
      reversibility: 'mutating',
      approved: false,
      network: false,
      signal: new AbortController().signal,
      heartbeat: () => undefined,
      log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    }) as unknown as Parameters<typeof refund.execute>[1];
  const small = { customerId: 'acme', amount: 20, reason: 'late delivery' };
  assert.equal(await refund.execute(small, context('call-3')), 'Refunded 20.00 to acme.');
  // The worker died before Temporal heard the call finished: the same call runs again.
  assert.equal(
    await refund.execute(small, context('call-3')),
    'Already refunded 20.00 to acme (call goal-1/call-3).',
  );
  // Another call with the same input is another refund.
  await refund.execute(small, context('call-4'));
  const lines = readFileSync(path.join(workspace, 'outbox', 'refunds.jsonl'), 'utf8')
    .trim()
    .split('\n');
  assert.deepEqual(
    lines.map((line) => (JSON.parse(line) as { key: string }).key),
    ['goal-1/call-3', 'goal-1/call-4'],
  );
});
