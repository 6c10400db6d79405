import { InvalidArgumentError, type Command } from 'commander';
import path from 'node:path';
import type { ConnectionSettings } from '../client/connection-settings';
import { hostIdSchema } from '../workflows/hosts/host-queues';
import { isScenarioError } from '../scripted-model/scenario-error';
import { CliError } from './cli-error';
import { runWorker } from './lazy-modules';

interface WorkerCommandOptions {
  approvalRules?: string;
  scripted?: string;
  hostId?: string;
  workspaceRoot?: string[];
  replica?: boolean;
  maxActivities?: number;
  maxWorkflows?: number;
  maxCachedWorkflows?: number;
  goalsAtWork?: number;
}

/**
 * `keel worker`: runs a worker until SIGINT/SIGTERM. Each host flag overrides its variable
 * (KEEL_HOST_ID, KEEL_WORKSPACE_ROOTS, KEEL_MAX_CONCURRENT_*); a bad value is one line, at once.
 */
export function registerWorkerCommand(program: Command): void {
  program
    .command('worker')
    .description('run a keel worker (model key from ANTHROPIC_API_KEY)')
    .option('--scripted <scenario.yaml>', 'replay a scripted model scenario instead of calling a real model')
    .option('--host-id <id>', "this host's id (env KEEL_HOST_ID; default: the machine's hostname)", hostId)
    .option(
      '--workspace-root <dir>',
      'serve only workspaces under this directory (repeatable; env KEEL_WORKSPACE_ROOTS; default any path)',
      // No commander default: it would add "(default: [])" after the description's own.
      (value: string, all: string[] | undefined) => [...(all ?? []), path.resolve(value)],
    )
    .option(
      '--replica',
      'join a host id another live machine holds, when both see the same workspace disk (env KEEL_HOST_REPLICA=1)',
    )
    .option(
      '--max-activities <n>',
      'activities run at once on each queue (env KEEL_MAX_CONCURRENT_ACTIVITIES; default 20)',
      positiveInteger,
    )
    .option(
      '--max-workflows <n>',
      'workflow tasks run at once (env KEEL_MAX_CONCURRENT_WORKFLOWS; default 40)',
      positiveInteger,
    )
    .option(
      '--max-cached-workflows <n>',
      'goals kept in memory; others replay from history when needed (env KEEL_MAX_CACHED_WORKFLOWS; default from memory, at least 2)',
      positiveInteger,
    )
    .option(
      '--goals-at-work <n>',
      'goals making model calls at once; the others wait for a place, first come, first served (env KEEL_GOALS_AT_WORK, auto for 4 a core and at least 8; default: no bound)',
      positiveInteger,
    )
    .option(
      '--approval-rules <file>',
      "the team's approval rules for every goal this worker starts, a JSON file (env KEEL_APPROVAL_RULES)",
    )
    .action(async (options: WorkerCommandOptions, command: Command) => {
      await runWorker({
        ...(options.approvalRules !== undefined ? { approvalRulesFile: options.approvalRules } : {}),
        settings: command.optsWithGlobals<Partial<ConnectionSettings>>(),
        scriptedScenarioFile: options.scripted,
        ...(options.hostId !== undefined ? { hostId: options.hostId } : {}),
        ...(options.workspaceRoot ? { workspaceRoots: options.workspaceRoot } : {}),
        ...(options.replica === true ? { replica: true } : {}),
        ...(options.maxActivities !== undefined ? { maxConcurrentActivities: options.maxActivities } : {}),
        ...(options.maxWorkflows !== undefined ? { maxConcurrentWorkflows: options.maxWorkflows } : {}),
        ...(options.maxCachedWorkflows !== undefined
          ? { maxCachedWorkflows: options.maxCachedWorkflows }
          : {}),
        ...(options.goalsAtWork !== undefined ? { goalsAtWork: options.goalsAtWork } : {}),
      }).catch(scenarioFileProblem);
    });
}

/** A --scripted file that cannot be used is the user's to fix: its one line, exit code 2. */
function scenarioFileProblem(error: unknown): never {
  throw isScenarioError(error) ? new CliError(error.message) : error;
}

function hostId(value: string): string {
  const parsed = hostIdSchema.safeParse(value);
  if (!parsed.success) throw new InvalidArgumentError(parsed.error.issues[0]?.message ?? 'not a host id');
  return parsed.data;
}

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!/^\d+$/.test(value.trim()) || number <= 0)
    throw new InvalidArgumentError('must be a positive whole number');
  return number;
}
