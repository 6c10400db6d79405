import type { Command } from 'commander';
import type { Client } from '@temporalio/client';
import type { ConnectionSettings } from '../client/connection-settings';
import { planQuery, type GoalStatusView } from '../workflows/goal/messages';
import type { ModelWait } from '../client/model-wait';
import { renderPlan } from '../workflows/planning/plan';
import { ignoredDetail, tokenUsageText } from '../workflows/goal/views/details';
import { workspaceLossLine } from '../workflows/hosts/workspace-writes';
import { visibleJson, visibleText } from '../workflows/tools/call-text';
import { approvalLines, labelText, pendingEntries, pendingLines, type PendingEntry } from './approval-lines';
import { changesCommand, changesPage, CHANGES_PAGE_SIZE } from './approval-changes-pages';
import { CliError } from './cli-error';
import { ExitCode } from './exit-codes';
import { budgetLines, childApprovalLines, childrenLines } from './budget-lines';
import { finalTextLabel } from './final-text-label';
import { recordPendingLine, recordPlanLines, recordStatusJson, recordStatusLines } from './goal-record-lines';
import { hostLossLines } from './host-loss-lines';
import { underRoots } from '../client/pending-tree';
import {
  askWorker,
  goalHandle,
  goalRecordOf,
  goalRecordOfListing,
  goalStatus,
  hostSightings,
  modelActivity,
  runningGoals,
  statusOfEach,
} from './lazy-modules';

type WithClient = <T>(
  command: Command,
  action: (client: Client, settings: ConnectionSettings) => Promise<T>,
) => Promise<T>;

/**
 * `keel status`, `keel plan` and `keel pending`: each asks the goal (a query, answered by its
 * worker) for a few seconds at most, and without a worker answers from the server's record under
 * the one note that says so (no-worker.ts, goal-record-lines.ts).
 */
export function registerStatusCommands(
  program: Command,
  withClient: WithClient,
  print: (line: string) => void,
): void {
  program
    .command('status')
    .description("a goal's status, counters, pending approvals and latest messages")
    .argument('<workflowId>')
    .option('--json', 'print the raw status as JSON')
    .action(async (workflowId: string, options: { json?: boolean }, command: Command) => {
      await withClient(command, async (client, settings) => {
        const handle = goalHandle(client, workflowId);
        const description = await handle.describe();
        // Countdowns are as of the description, not of the query's answer seconds later.
        const describedAt = Date.now();
        const answer = await askWorker({
          client,
          workflowId,
          taskQueue: description.taskQueue,
          ask: () => goalStatus(handle),
        });
        if (!answer.answered) {
          const record = await goalRecordOf(client, description, describedAt);
          process.exitCode = ExitCode.NoWorker;
          if (options.json) return print(visibleJson(recordStatusJson(record, answer.noWorker)));
          for (const line of recordStatusLines(record, answer.noWorker)) print(line);
          return;
        }
        const view = answer.value;
        // The query cannot see Temporal retrying a model call; the pending activity can.
        const { wait } =
          view.status === 'running'
            ? await modelActivity(client, description, () => describedAt).catch(() => ({ wait: undefined }))
            : { wait: undefined };
        if (options.json) return print(visibleJson(wait === undefined ? view : { ...view, modelWait: wait }));
        const sighting =
          view.host === undefined || view.status !== 'running'
            ? undefined
            : await (
                await hostSightings({ connection: client.connection, namespace: settings.namespace })
              )(view.host);
        for (const line of statusLines(workflowId, view, sighting, wait)) print(line);
      });
    });

  program
    .command('pending')
    .description('tool calls and outputs awaiting a human decision (approvals and reviews)')
    .argument('[workflowId]', "only this goal's")
    .option(
      '--json',
      'print one JSON array of {workflowId, callId, reversibility, summary, deadline, call, input, heldChanges, changesDigest} (call: the whole call, summary: its short label, heldChanges: every path; a review: callId "review")',
    )
    .option(
      '--changes <callId>',
      "list every change the call holds, a path a line (needs the goal's workflowId)",
    )
    .option('--page <number>', `which page of --changes (${CHANGES_PAGE_SIZE} paths a page)`, '1')
    .option('--diff <callId>', "show the changes the call holds as a diff (needs the goal's workflowId)")
    .action(async (workflowId: string | undefined, options: PendingOptions, command: Command) => {
      const page = pageNumber(workflowId, options);
      await withClient(command, async (client, settings) => {
        const pending: PendingEntry[] = [];
        const [goals, sightings] = await Promise.all([
          // A goal's delegated children too: their waiting calls are listed under it (pending-tree.ts).
          runningGoals(client, workflowId, { withChildren: true }),
          hostSightings({ connection: client.connection, namespace: settings.namespace }),
        ]);
        for (const { goal, answer, error } of await statusOfEach(client, goals)) {
          if (answer === undefined) {
            process.stderr.write(`keel: ${goal.workflowId} could not be asked: ${error}\n`);
            continue;
          }
          if (!answer.answered) {
            // Said on stderr, so --json stays one array of calls; a worker lists the calls themselves.
            const line = recordPendingLine(await goalRecordOfListing(client, goal), answer.noWorker);
            if (line !== undefined) process.stderr.write(`keel: ${line}\n`);
            continue;
          }
          const view = answer.value;
          const hostLoss = hostLossLines({
            workflowId: goal.workflowId,
            host: view.host,
            pendingApprovals: view.pendingApprovals.length,
            seen: view.host === undefined ? undefined : await sightings(view.host),
          });
          pending.push(
            ...pendingEntries(goal.workflowId, view).map((entry) =>
              hostLoss.length === 0 ? entry : { ...entry, hostLoss },
            ),
          );
        }
        const listed = underRoots(pending, new Set(goals.map((goal) => goal.workflowId)));
        const lines =
          options.diff !== undefined && workflowId !== undefined
            ? heldDiffLines(listed, workflowId, options.diff)
            : options.changes !== undefined && workflowId !== undefined
              ? changesOf(listed, workflowId, options.changes, page, options.json === true)
              : options.json
                ? [visibleJson(listed)]
                : pendingLines(listed);
        for (const line of lines) print(line);
      });
    });

  program
    .command('plan')
    .description("a goal's current plan: steps, their statuses and the attempt")
    .argument('<workflowId>')
    .action(async (workflowId: string, _options: unknown, command: Command) => {
      await withClient(command, async (client) => {
        const handle = goalHandle(client, workflowId);
        const description = await handle.describe();
        const answer = await askWorker({
          client,
          workflowId,
          taskQueue: description.taskQueue,
          ask: () => handle.query(planQuery),
        });
        if (!answer.answered) {
          process.exitCode = ExitCode.NoWorker;
          for (const line of recordPlanLines(await goalRecordOf(client, description), answer.noWorker))
            print(line);
          return;
        }
        const plan = answer.value;
        print(plan ? renderPlan(plan) : `${workflowId} has no plan (planning is off for this goal)`);
      });
    });
}

/** `keel status`'s lines from the goal's own answer. */
function statusLines(
  workflowId: string,
  view: GoalStatusView,
  sighting: Parameters<typeof hostLossLines>[0]['seen'],
  wait: ModelWait | undefined,
): string[] {
  const lines: string[] = [];
  const print = (line: string) => lines.push(line);
  print(`${workflowId}: ${view.status} (${view.phase})${view.endReason ? ` — ${view.endReason}` : ''}`);
  // Under "running (thinking)": the goal is not thinking while the API turns it away.
  if (wait) print(`waiting on the model: ${labelText(wait.line)}`);
  print(`goal: ${view.goal}`);
  if (view.model)
    print(
      `model: ${view.model}${view.model.startsWith('scripted:') ? ' (a scripted model, not an LLM)' : ''}`,
    );
  print(
    `task ${view.task.index + 1}; model turns ${view.counters.modelTurns}; tool calls ${view.counters.toolCalls}`,
  );
  print(`tokens: ${tokenUsageText(view.usage)}`);
  for (const line of budgetLines(view)) print(line);
  for (const line of childrenLines(view)) print(line);
  for (const line of childApprovalLines(view, workflowId)) print(line);
  if (view.host?.unavailableSince !== undefined) {
    print(`workspace host ${view.host.id} unavailable since ${view.host.unavailableSince}; you can:`);
    for (const action of view.host.actions ?? []) print(`  ${action}`);
  } else if (view.host) {
    const loss = hostLossLines({
      workflowId,
      host: view.host,
      pendingApprovals: view.pendingApprovals.length,
      seen: sighting,
    });
    if (loss.length === 0) print(`host: ${view.host.id}`);
    for (const line of loss) print(line);
  }
  for (const loss of view.workspaceLoss ?? []) print(`lost writes: ${workspaceLossLine(loss)}`);
  if (view.lineage !== undefined) print(view.lineage);
  if (view.lastDecision)
    print(
      `last decision: ${labelText(view.lastDecision.summary)}${view.lastDecision.reason === undefined ? '' : ` (${labelText(view.lastDecision.reason)})`}`,
    );
  if (view.guards?.last) print(`last guard decision: ${view.guards.last.summary}`);
  for (const approval of view.pendingApprovals) {
    print(`awaiting approval: ${approval.callId} ${labelText(approval.summary)}`);
    for (const line of approvalLines({ ...approval, workflowId })) print(line);
  }
  for (const rule of view.rules ?? [])
    print(`rule ${rule.id} in force: ${labelText(rule.text)} (by ${labelText(rule.by)}, ${rule.source})`);
  if ((view.counters.approvalsIgnored ?? 0) > 0)
    print(`ignored decisions: ${view.counters.approvalsIgnored}${ignoredDetail(view.lastIgnoredDecision)}`);
  for (const line of view.latestMessages) print(`  ${line}`);
  if (view.finalText) print(`${finalTextLabel(view.status)}: ${view.finalText}`);
  return lines;
}

/** Running keel goals, newest first, with the task queue and search attributes the listing carries. */
interface PendingOptions {
  json?: boolean;
  changes?: string;
  diff?: string;
  page: string;
}

/** `--page` as a number, checked before the server is asked: bad input is one clear line. */
function pageNumber(workflowId: string | undefined, options: PendingOptions): number {
  if (options.changes !== undefined && workflowId === undefined)
    throw new CliError('--changes needs the goal: keel pending <workflowId> --changes <callId>');
  if (options.diff !== undefined && workflowId === undefined)
    throw new CliError('--diff needs the goal: keel pending <workflowId> --diff <callId>');
  if (options.diff !== undefined && options.changes !== undefined)
    throw new CliError('--diff and --changes show one call each: give one of them');
  if (options.page !== '1' && options.changes === undefined)
    throw new CliError('--page pages the list of --changes <callId>');
  const page = Number(options.page);
  if (!/^[1-9][0-9]*$/.test(options.page) || !Number.isSafeInteger(page))
    throw new CliError(`--page takes a page number from 1, not ${options.page}`);
  return page;
}

/** `keel pending <goal> --changes <callId>`: a page of the call's held changes, or all as JSON. */
function changesOf(
  pending: readonly PendingEntry[],
  workflowId: string,
  callId: string,
  page: number,
  json: boolean,
): string[] {
  const entry = heldEntry(pending, workflowId, callId);
  if (json) return [visibleJson({ heldChanges: entry.heldChanges, changesDigest: entry.changesDigest })];
  const listed = changesPage({ workflowId, callId, changes: entry.heldChanges, page });
  if (!listed.ok) throw new CliError(listed.message);
  return listed.lines;
}

/** `keel pending <goal> --diff <callId>`: the held changes line by line, as the worker took them. */
function heldDiffLines(pending: readonly PendingEntry[], workflowId: string, callId: string): string[] {
  const entry = heldEntry(pending, workflowId, callId);
  if (entry.heldDiff === undefined)
    throw new CliError(
      `${workflowId} ${callId} has no diff (held by a worker before diffs were kept): ${changesCommand(workflowId, callId)} lists its paths`,
    );
  return visibleText(entry.heldDiff).replace(/\n$/, '').split('\n');
}

/** The pending call `--changes` or `--diff` names, when it holds changes; else one clear line. */
function heldEntry(
  pending: readonly PendingEntry[],
  workflowId: string,
  callId: string,
): PendingEntry & { heldChanges: NonNullable<PendingEntry['heldChanges']> } {
  const entry = pending.find((candidate) => candidate.callId === callId);
  if (entry === undefined)
    throw new CliError(`${workflowId} has no pending call ${callId} (keel pending lists them)`);
  if (entry.heldChanges === undefined)
    throw new CliError(`${workflowId} ${callId} holds no changes: approving it runs the call`);
  return { ...entry, heldChanges: entry.heldChanges };
}
