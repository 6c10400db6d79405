/**
 * `keel run`: starts a goal from the words and flags given, prints its workflow id, Web UI link
 * and the host it bound to, and with --wait follows it until it ends.
 */
import { Option, type Command } from 'commander';
import { statSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { ConnectionSettings } from '../client/connection-settings';
import { devServerUiGuess, WEB_UI_URL_VARIABLE, workflowPageUrl } from '../client/web-ui';
import { parseGoalInput, type GoalInput } from '../workflows/goal/lifecycle/input';
import { judgeInput } from './budget-flags';
import { CliError } from './cli-error';
import { ExitCode } from './exit-codes';
import { duration, positiveInteger, positiveNumber, toolGlobs, wholeNumber } from './flag-parsers';
import { awaitHostBinding, describeResult, followGoal, hostsToAsk, startGoal } from './lazy-modules';
import { modelInput, toolChoiceFlag } from './model-flags';
import { notifyEmailOption, notifyInput, notifyOption, notifyReminderOption } from './notify-flags';
import { approvalInput, delegationInput, principlesInput, rulesInput, type RunOptions } from './run-options';

type WithClient = <T>(
  command: Command,
  action: (client: Client, settings: ConnectionSettings) => Promise<T>,
) => Promise<T>;

export function registerRunCommand(
  program: Command,
  withClient: WithClient,
  print: (line: string) => void,
): void {
  program
    .command('run')
    .description('start a goal; prints its workflow id and Web UI link')
    .argument('<goal...>', 'what the agent should achieve')
    .option(
      '-c, --criteria <text>',
      'a success criterion (repeatable)',
      (value: string, all: string[]) => [...all, value],
      [],
    )
    .option('-w, --workspace <dir>', 'the directory the agent works in', '.')
    .addOption(
      new Option('--approval-policy <policy>', 'mutating calls: run at once or ask a human')
        .choices(['auto', 'ask'])
        .default('auto'),
    )
    .option('--model <name>', 'model name')
    .option(
      '--answer-tokens <n>',
      "the most tokens one model answer may have (max_tokens; up to the model's output limit)",
      positiveInteger,
    )
    .option(
      '--thinking <tokens>',
      'extended thinking with this budget (at least 1024); answers get this much more room',
      positiveInteger,
    )
    .option('--no-cache', 'send no prompt-cache breakpoints (for endpoints that refuse them)')
    .addOption(
      new Option(
        '--cache-ttl <ttl>',
        'how long cached prompts live: 1h suits goals that wait on humans',
      ).choices(['5m', '1h']),
    )
    .option(
      '--context-window <tokens>',
      "the model's context window, for a model keel does not know (200,000 assumed) or a smaller one",
      positiveInteger,
    )
    .option(
      '--model-patience <duration>',
      'how long a model call waits out rate limits, overload and outages before the goal fails (default 6h)',
      duration,
    )
    .option(
      '--fallback-model <name>',
      'a model turns go to after 2 min of overload or rate limiting; the model is asked again after 10 min (repeatable, in order)',
      (value: string, all: string[]) => [...all, value],
      [],
    )
    .option(
      '--tool-choice <choice>',
      'which tools the model must call each turn: auto, any, none or tool:NAME (not with --thinking: any and tool:NAME force tool use)',
      toolChoiceFlag,
    )
    .option('--no-parallel-tool-use', 'the model calls at most one tool per turn (disable_parallel_tool_use)')
    .option('--max-tool-calls <n>', 'tool-call limit', positiveInteger)
    .option('--max-turns <n>', 'model-turn limit', positiveInteger)
    .option('--approval-timeout <duration>', 'how long an approval may wait (default 24h)', duration)
    .option('--max-usd <dollars>', 'budget: end the goal at this estimated cost in USD', positiveNumber)
    .option(
      '--max-tokens <n>',
      'budget: end the goal after this many tokens (all model calls)',
      positiveInteger,
    )
    .option('--max-wall-time <duration>', 'budget: end the goal after this long, e.g. 30m or 2h', duration)
    .option(
      '--no-budget',
      'no default budget ($5, or 10M tokens for an unpriced model, when no limit is set here or by the worker)',
    )
    .option('--no-judge', 'no progress judge: only the counting guards watch for runaways')
    .option('--judge-model <model>', 'the progress judge model (default claude-haiku-4-5)')
    .option(
      '--reflection-cadence <n>',
      'a checkpoint every N tool calls (0 disables; overrides the worker)',
      wholeNumber,
    )
    .option(
      '--tools <globs>',
      'the tools this goal may use, comma-separated globs, e.g. "read_file,search,github__*" (default: every tool the worker has)',
      toolGlobs,
    )
    .addOption(
      new Option(
        '--approvers <tier=names>',
        'who may approve a tier, e.g. irreversible=alice,bob (repeatable)',
      )
        .argParser((value: string, all: string[]) => [...all, value])
        .default([], 'anyone'),
    )
    .option(
      '--approval-key <name=publicKey>',
      "require signed decisions; an approver's base64 public key from `keel keygen` (repeatable)",
      (value: string, all: string[]) => [...all, value],
      [],
    )
    .option(
      '--allow <rule>',
      'approve calls matching this rule at once, e.g. "run_command: npm test*" (repeatable; not irreversible calls)',
      (value: string, all: string[]) => [...all, value],
      [],
    )
    .option(
      '--allow-irreversible <rule>',
      'like --allow, and irreversible calls it matches too (repeatable)',
      (value: string, all: string[]) => [...all, value],
      [],
    )
    .option(
      '--forbid <rule>',
      'refuse calls matching this rule at once, without asking, e.g. "run_command: git push*" (repeatable)',
      (value: string, all: string[]) => [...all, value],
      [],
    )
    .option(
      '--require-encrypted-decisions',
      'with payload encryption on, refuse decisions sent in plain text (without the codec)',
    )
    .addOption(notifyOption())
    .addOption(notifyEmailOption())
    .addOption(notifyReminderOption())
    .option('--network', "let run_command use the worker's network (every command then needs approval)")
    .option('--plan', 'plan before acting and backtrack when a step fails')
    .option(
      '--delegate',
      'offer the model the delegate tool: child goals with some of its tools and a slice of its budget',
    )
    .option(
      '--delegate-depth <n>',
      'with --delegate: how deep a tree of goals may grow (default 2)',
      positiveInteger,
    )
    .option(
      '--max-children <n>',
      'with --delegate: children of one goal running at once (default 3)',
      positiveInteger,
    )
    .option('--reflect', 'learn from this run for the next run of the same goal (after review)')
    .option('--id <workflowId>', 'workflow id (generated when omitted)')
    .option(
      '--host <id>',
      'the host whose workers hold the workspace (default: the goal asks every host; `keel hosts` lists them)',
    )
    .option(
      '--git <url>',
      'a git repository the workspace is cloned from when missing (lets the goal move hosts)',
    )
    .option('--git-ref <ref>', 'the branch or tag --git clones')
    .option(
      '--host-timeout <duration>',
      "how long a call waits for the workspace host's workers before the goal shows the host as unavailable (default 1m)",
      duration,
    )
    .option('--wait', 'follow progress until the goal ends')
    .action(async (goalWords: string[], options: RunOptions, command: Command) => {
      const workspace = path.resolve(options.workspace);
      if ((options.delegateDepth ?? options.maxChildren) !== undefined && options.delegate !== true)
        throw new CliError('--delegate-depth and --max-children need --delegate');
      if (options.gitRef !== undefined && options.git === undefined)
        throw new CliError('--git-ref needs --git');
      // Without --host or --git the workspace is on this machine (or a path every host shares):
      // a typo should not start a goal. Otherwise the host decides, when the goal binds.
      const workspaceProblem =
        options.host === undefined && options.git === undefined ? directoryProblem(workspace) : undefined;
      if (workspaceProblem)
        throw new CliError(
          `workspace ${workspace} ${workspaceProblem} here${workspaceProblem === 'does not exist' ? ' (on another machine? name its host: --host ID; keel hosts lists them)' : ''}`,
        );
      const input: GoalInput = {
        goal: goalWords.join(' '),
        successCriteria: options.criteria,
        workspace,
        ...(options.host === undefined ? {} : { host: options.host }),
        ...(options.git === undefined
          ? {}
          : {
              workspaceSource: {
                git: options.git,
                ...(options.gitRef === undefined ? {} : { ref: options.gitRef }),
              },
            }),
        approvalPolicy: options.approvalPolicy,
        ...modelInput(options),
        limits: {
          ...(options.maxToolCalls ? { maxToolCalls: options.maxToolCalls } : {}),
          ...(options.maxTurns ? { maxTurns: options.maxTurns } : {}),
          ...(options.approvalTimeout ? { approvalTimeoutMs: options.approvalTimeout } : {}),
        },
        ...(options.hostTimeout ? { timing: { hostTimeoutMs: options.hostTimeout } } : {}),
        ...principlesInput(options),
        ...judgeInput(options),
        ...(options.plan ? { planning: { enabled: true } } : {}),
        ...delegationInput(options),
        ...(options.network ? { sandbox: { network: true } } : {}),
        ...(options.tools ? { tools: options.tools } : {}),
        ...(options.reflect ? { reflection: { enabled: true } } : {}),
        ...approvalInput(options),
        ...rulesInput(options),
        ...(options.requireEncryptedDecisions ? { requireEncryptedDecisions: true } : {}),
        ...notifyInput(options),
      };
      // Validated before connecting: bad input is reported even when no server is running.
      const parsed = parseGoalInput(input);
      if (!parsed.ok) throw new CliError(parsed.message);
      await withClient(command, async (client, settings) => {
        if (options.host !== undefined) await mustBeServing(client, settings, options.host);
        // Asked while the goal starts: a UI slow to answer under load costs no time of its own.
        const ui = webUiOf(settings.address);
        const handle = await startGoal(client, {
          input,
          taskQueue: settings.taskQueue,
          workflowId: options.id,
        });
        print(`goal started: ${handle.workflowId}`);
        const uiLine =
          ui &&
          webUiLine({
            base: ui.base,
            answering: await ui.answering,
            namespace: settings.namespace,
            workflowId: handle.workflowId,
            runId: firstRunIdOf(handle),
          });
        if (uiLine) print(uiLine);
        const binding = await awaitHostBinding(handle, { timeoutMs: BIND_WAIT_MS });
        if (binding.kind === 'failed')
          throw new CliError(`goal ${handle.workflowId} cannot run: ${binding.message}`);
        if (binding.kind === 'bound') print(`host: ${binding.host} (${describeBinding(binding.via)})`);
        else if (binding.kind === 'pending')
          print('host: not bound yet (no keel worker has taken the goal; it binds when one does)');
        if (!options.wait) return;
        const result = await followGoal(handle, { print });
        describeResult(result).forEach((line) => print(line));
        if (result.status !== 'completed') process.exitCode = ExitCode.Failed;
      });
    });
}

/** Where the Web UI is, as far as keel can know without asking the server (the frontend does not know it). */
export interface WebUiAddress {
  base: string;
  /** Whether the base was configured (KEEL_WEB_UI_URL), not guessed from a local dev server's address. */
  configured: boolean;
}

/**
 * KEEL_WEB_UI_URL when set (empty: no links); for a server on this machine, the dev server's UI
 * (its port + 1000); otherwise none. Known, not probed: a UI slow to answer still gets its link.
 */
export function webUiAddress(
  address: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): WebUiAddress | undefined {
  const configured = env[WEB_UI_URL_VARIABLE];
  if (configured !== undefined)
    return configured.trim() === ''
      ? undefined
      : { base: configured.trim().replace(/\/+$/, ''), configured: true };
  const guess = devServerUiGuess(address);
  return guess === undefined ? undefined : { base: guess, configured: false };
}

/** The Web UI's "User Metadata" tab of a run: the goal's summary and its current details. */
export const USER_METADATA_TAB = 'User Metadata';

/**
 * `web ui: <link>`, a link to the goal's "User Metadata" tab when the run is known (Temporal UI
 * 2.40 and later: /namespaces/<ns>/workflows/<id>/<runId>/user-metadata), else to the goal (the UI
 * opens its latest run), naming the tab either way. A configured UI (KEEL_WEB_UI_URL) is always
 * linked; a guessed one only when it answered the probe (WEB_UI_PROBE_MS, long enough for a dev
 * server's UI under load): a headless server has no UI, and a link to nothing would mislead.
 */
export function webUiLine(
  options: GoalPageOptions & {
    /** Whether the UI answered (undefined: not asked, e.g. a configured address). */
    answering?: boolean | undefined;
  },
): string | undefined {
  if (options.answering === false) return undefined;
  return `web ui: ${goalPageUrl(options)} (summary and details: the "${USER_METADATA_TAB}" tab)`;
}

export interface GoalPageOptions {
  base: string;
  namespace: string;
  workflowId: string;
  runId?: string | undefined;
}

/** The goal's "User Metadata" tab when its run is known, else its page (see webUiLine). */
export function goalPageUrl(options: GoalPageOptions): string {
  const goalPage = workflowPageUrl(options.base, options.namespace, options.workflowId);
  return options.runId === undefined
    ? goalPage
    : `${goalPage}/${encodeURIComponent(options.runId)}/user-metadata`;
}

/** How long `keel run` gives a guessed Web UI to answer (it was 500 ms, which a loaded machine missed). */
export const WEB_UI_PROBE_MS = 3_000;

/** The Web UI's address, and (for a guessed one) whether it answers, asked at once. */
export function webUiOf(
  address: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): { base: string; answering: Promise<boolean | undefined> } | undefined {
  const ui = webUiAddress(address, env);
  if (ui === undefined) return undefined;
  return { base: ui.base, answering: ui.configured ? Promise.resolve(undefined) : answersHttp(ui.base) };
}

/** The run a goal started with, which the handle `keel run` got from starting it knows. */
export function firstRunIdOf(handle: object): string | undefined {
  return 'firstExecutionRunId' in handle && typeof handle.firstExecutionRunId === 'string'
    ? handle.firstExecutionRunId
    : undefined;
}

async function answersHttp(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { method: 'HEAD', signal: AbortSignal.timeout(WEB_UI_PROBE_MS) });
    await response.body?.cancel();
    return true; // any HTTP answer: a UI is there, whatever it says to HEAD /
  } catch {
    return false;
  }
}

/** A named host must have a worker polling now; a typo should not start a goal that waits for nobody. */
async function mustBeServing(client: Client, settings: ConnectionSettings, hostId: string): Promise<void> {
  const hosts = await hostsToAsk({
    connection: client.connection,
    namespace: settings.namespace,
    taskQueue: settings.taskQueue,
  });
  if (hosts.includes(hostId)) return;
  const known = hosts.length === 0 ? 'none' : hosts.join(', ');
  throw new CliError(
    `unknown host "${hostId}": no keel worker of that host polls task queue ${settings.taskQueue} (hosts now: ${known})`,
  );
}

/** How long `keel run` waits for a new goal to bind to its workspace host before it returns. */
const BIND_WAIT_MS = 20_000;

function describeBinding(via: string): string {
  switch (via) {
    case 'probe':
      return 'it has the workspace';
    case 'named':
      return 'as named';
    case 'cloned':
      return 'the workspace was cloned there';
    default:
      return via;
  }
}

/** Why `directory` cannot be a workspace ("does not exist", "is not a directory"), or undefined. */
function directoryProblem(directory: string): string | undefined {
  try {
    return statSync(directory).isDirectory() ? undefined : 'is not a directory';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'does not exist' : `cannot be read (${code ?? String(error)})`;
  }
}
