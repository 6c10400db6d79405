/**
 * A keel worker with your own tools: two of them here (one read-only, one irreversible), one whose
 * tier depends on its input, plus every MCP server declared in keel.config.yaml (in the working
 * directory, or the file KEEL_CONFIG names). Run it from this folder:
 *
 *   ANTHROPIC_API_KEY=... npx tsx worker.ts
 *
 * then start a goal that may use them: keel run --tools 'lookup_customer,send_invoice,refund,files__*' ...
 */
import { runWorker } from 'keel';
import { lookupCustomer } from './tools/lookup-customer';
import { refund } from './tools/refund';
import { sendInvoice } from './tools/send-invoice';

export const exampleTools = [lookupCustomer, sendInvoice, refund];

if (require.main === module) {
  runWorker({
    tools: exampleTools,
    scriptedScenarioFile: process.env.KEEL_SCRIPTED_SCENARIO || undefined,
  }).catch((error: unknown) => {
    console.error(`example worker: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  });
}
