import { appendFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from 'keel';

/** Refunds up to this amount run without a human; larger ones wait for approval. */
export const REFUND_APPROVAL_THRESHOLD = 50;

/**
 * A tool whose tier depends on its input: a small refund is an ordinary (mutating) change, a
 * large one is irreversible and needs a human. keel decides the tier on the worker before the call
 * and records it, so a later change to the threshold never changes a running goal's history.
 */
export const refund = defineTool({
  name: 'refund',
  description: `Refund a customer (appended to outbox/refunds.jsonl). Refunds over ${REFUND_APPROVAL_THRESHOLD} need a human's approval.`,
  input: z.object({
    customerId: z.string().min(1),
    amount: z.number().positive(),
    reason: z.string().min(1),
  }),
  reversibility: (input) =>
    input.amount > REFUND_APPROVAL_THRESHOLD
      ? { tier: 'irreversible', reason: `a refund of ${input.amount} is over ${REFUND_APPROVAL_THRESHOLD}` }
      : { tier: 'mutating', reason: `a refund of ${input.amount} is within ${REFUND_APPROVAL_THRESHOLD}` },
  summarize: (input) => `refund: ${input.customerId} ${input.amount.toFixed(2)}`,
  async execute(input, context) {
    // A mutating call runs at least once: a worker that dies while it runs (or before Temporal
    // hears it finished) runs it again after a restart. The call's key makes the retry a no-op.
    const key = `${context.goalId}/${context.callId}`;
    const outbox = path.join(context.workspace, 'outbox');
    const file = path.join(outbox, 'refunds.jsonl');
    await mkdir(outbox, { recursive: true });
    const done = await readFile(file, 'utf8').catch(() => '');
    if (done.split('\n').some((line) => line.startsWith(`{"key":${JSON.stringify(key)},`)))
      return `Already refunded ${input.amount.toFixed(2)} to ${input.customerId} (call ${key}).`;
    await appendFile(file, `${JSON.stringify({ key, ...input })}\n`);
    return `Refunded ${input.amount.toFixed(2)} to ${input.customerId}.`;
  },
});
