import { z } from 'zod';
import { defineTool } from '../../src/activities/tools/define-tool';

/**
 * An irreversible tool of the test's own (issue 48's forks and rewinds): `send_invoice`, counting
 * how often it really ran, so a test can say an invoice was never sent twice.
 */
export function invoiceTool() {
  let sent = 0;
  const tool = defineTool({
    name: 'send_invoice',
    description: 'Send an invoice to a customer.',
    input: z.object({ customer: z.string() }),
    reversibility: 'irreversible',
    execute: async (input) => {
      sent += 1;
      return Promise.resolve(`invoice sent to ${input.customer}`);
    },
  });
  return { tool, sent: () => sent };
}
