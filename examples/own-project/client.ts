/**
 * The client: starts a goal on the worker's task queue and waits for its result.
 *
 *   npx tsx client.ts "How many words are in notes.md?"
 */
import { connectClient, connectionSettings, goalResult, startGoal } from 'keel';

async function main(): Promise<void> {
  // TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE and KEEL_TASK_QUEUE, else the local dev server's defaults
  const settings = connectionSettings();
  const client = await connectClient(settings);
  try {
    const handle = await startGoal(client, {
      taskQueue: settings.taskQueue,
      input: {
        goal: process.argv[2] ?? 'How many words are in notes.md?',
        workspace: process.cwd(), // the folder the goal's tools work in
        tools: ['read_file', 'count_words'], // globs over the worker's tools; all of them when omitted
      },
    });
    console.log(`goal started: ${handle.workflowId}`);
    const result = await goalResult(handle);
    console.log(`${result.status}: ${result.finalText ?? result.reason ?? ''}`);
  } finally {
    await client.connection.close();
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : String(error));
  process.exit(1);
});
