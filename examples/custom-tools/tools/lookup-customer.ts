import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { defineTool } from 'keel';

const customerSchema = z.object({ id: z.string(), name: z.string(), email: z.string(), balance: z.number() });

/** A read-only tool: it runs without approval and may be retried freely. */
export const lookupCustomer = defineTool({
  name: 'lookup_customer',
  description: 'Look up a customer by id in customers.json (name, email, open balance). Read-only.',
  input: z.object({ customerId: z.string().min(1).describe('e.g. "acme"') }),
  reversibility: 'read-only',
  summarize: (input) => `lookup_customer: ${input.customerId}`,
  async execute(input, context) {
    const file = path.join(context.workspace, 'customers.json');
    const customers = z.array(customerSchema).parse(JSON.parse(await readFile(file, 'utf8')));
    const customer = customers.find((candidate) => candidate.id === input.customerId);
    if (customer === undefined) {
      // A failed outcome with the tool's own next actions (thrown errors work too).
      return {
        ok: false,
        content: `No customer "${input.customerId}".`,
        candidates: [`Known customers: ${customers.map((candidate) => candidate.id).join(', ')}`],
        facts: {},
      };
    }
    return customer; // any JSON value is sent to the model as JSON
  },
});
