/**
 * A worker killed right after a changing call answered, before the note of what it left
 * (after-keel-calls.ts): marks a call running on the workspace (tools/running-calls.ts), writes a
 * file as the call would, and exits without unmarking or noting.
 *
 *   node --import tsx test/support/killed-call-process.ts WORKSPACE FILE
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { markCallRunning } from '../../src/activities/tools/running-calls';

async function main(): Promise<void> {
  const [workspace, file] = process.argv.slice(2);
  if (workspace === undefined || file === undefined) throw new Error('usage: WORKSPACE FILE');
  const deadline = new Date(Date.now() + 3_600_000).toISOString();
  await markCallRunning(workspace, { workflowId: 'goal-killed', callId: 'cut-off', deadline });
  writeFileSync(path.join(workspace, file), 'written by a call whose worker was then killed\n');
  process.exit(0); // no unmark, no note: as kill -9 would leave it
}

void main();
