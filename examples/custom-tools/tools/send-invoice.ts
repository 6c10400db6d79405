import { appendFile, mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from 'keel';

/**
 * An irreversible tool: once an invoice is sent, it cannot be unsent. keel asks a human before
 * every call and runs it at most once; the idempotency key keel hands it makes a repeat harmless
 * here too (a real invoicing API would take it as its own idempotency key).
 */
export const sendInvoice = defineTool({
  name: 'send_invoice',
  description:
    'Send an invoice to a customer (written to outbox/invoices.jsonl in the workspace). Irreversible: a human approves every invoice.',
  input: z.object({
    customerId: z.string().min(1).describe('The customer id, as lookup_customer returns it.'),
    amount: z.number().positive().describe('The amount to invoice, e.g. 120.5.'),
    currency: z.enum(['EUR', 'USD']).default('EUR'),
  }),
  reversibility: 'irreversible',
  summarize: (input) => `send_invoice: ${input.customerId} ${input.amount.toFixed(2)} ${input.currency}`,
  async execute(input, context) {
    const outbox = path.join(context.workspace, 'outbox', 'invoices.jsonl');
    await mkdir(path.dirname(outbox), { recursive: true });
    const sent = await readFile(outbox, 'utf8').catch(() => '');
    if (sent.includes(`"key":"${context.idempotencyKey}"`))
      return `Invoice already sent (key ${context.idempotencyKey}).`;
    const invoice = { key: context.idempotencyKey, ...input, sentAt: new Date().toISOString() };
    await appendFile(outbox, `${JSON.stringify(invoice)}\n`);
    return `Invoice sent to ${input.customerId}: ${input.amount.toFixed(2)} ${input.currency}.`;
  },
  nextActionsOnFailure: ({ input }) => [
    `lookup_customer {"customerId":"${input.customerId}"} — check the customer exists and has a billing address`,
    'Report the failure in your answer instead of sending the invoice another way',
  ],
});
