/**
 * One claim of a workspace from a process of its own, as a replica of a host would make it
 * (test/unit/workspace-claims.test.ts): argv is the registry directory, the goal's id, its
 * workspace and the moment (ms since the epoch) to claim at, so processes that started at
 * different speeds claim together. A goal named `ended` has ended, which takes half a second to
 * learn (as asking Temporal takes a round trip); every other goal runs. Prints the outcome as JSON.
 */
import { claimOf, claimWorkspace } from '../../src/activities/hosts/workspace-claims';

async function main(): Promise<void> {
  const [directory, workflowId, workspace, at] = process.argv.slice(2);
  if (directory === undefined || workflowId === undefined || workspace === undefined)
    throw new Error('usage: claim-workspace-process DIRECTORY WORKFLOW_ID WORKSPACE AT_MS');
  const claim = await claimOf(workflowId, workspace);
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, Number(at) - Date.now())));
  const outcome = await claimWorkspace({
    directory,
    claim,
    isLive: (other) =>
      other === 'ended'
        ? new Promise((resolve) => setTimeout(() => resolve(false), 500))
        : Promise.resolve(true),
  });
  process.stdout.write(`${JSON.stringify(outcome)}\n`);
}

void main();
