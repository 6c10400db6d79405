/**
 * The worker: keel's goal workflow and built-in tools, plus your own. It connects to
 * TEMPORAL_ADDRESS (default 127.0.0.1:7233) and calls the model with ANTHROPIC_API_KEY.
 *
 *   ANTHROPIC_API_KEY=... npx tsx worker.ts
 */
import { runWorker } from 'keel';
import { countWords } from './tools/count-words';

runWorker({ tools: [countWords] }).catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
