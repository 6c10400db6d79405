import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { closedGoalStatus, connectClient, goalHandle, sendUserMessage, startGoal } from './lazy-modules';
import { budgetInput, judgeInput } from './budget-flags';
import { generateApprovalKeyPair } from '../client/approval-keys';
import { connectionSettings, type ConnectionSettings } from '../client/connection-settings';
import { webUiBase, workflowPageUrl } from '../client/web-ui';
import { parseGoalInput, type GoalInput } from '../workflows/goal/lifecycle/input';
import { parseRuleText } from '../workflows/approvals/approval-rule';
import { CliError, describeCliError } from './cli-error';
import { parseDuration } from '../workflows/common/duration';
import { awaitHostBinding, describeResult, followGoal, hostsToAsk } from './lazy-modules';
import { registerRebindCommand } from './rebind-command';
import { registerCodecServerCommand } from './codec-server-command';
import { registerReflectionCommands } from './reflections-command';
import { registerReviewCommand } from './review-command';
import { registerApprovalCommands } from './approval-commands';
import { registerStatusCommands } from './status-commands';
import { askGoal } from './ask-goal';
import { registerHostsCommand } from './hosts-command';
import { registerToolsCommand } from './tools-command';
import { registerWorkerCommand } from './worker-command';
import { watchCommandAction } from './lazy-modules';
import { assessNowSignal, ledgerQuery } from '../workflows/goal/messages';
import { modelInput, toolChoiceFlag } from './model-flags';
import type { ToolChoiceSetting } from '../workflows/goal/model-turn/request-options';

interface GlobalOptions {
  address?: string;
  namespace?: string;
  taskQueue?: string;
}

const print = (line: string) => console.log(line);

function positiveInteger(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number <= 0)
    throw new InvalidArgumentError('must be a positive whole number');
  return number;
}

function wholeNumber(value: string): number {
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new InvalidArgumentError('must be a whole number (0 or more)');
  return number;
}

/** "read_file, search,github__*" → ["read_file", "search", "github__*"]; the worker matches them. */
function toolGlobs(value: string): string[] {
  const globs = value
    .split(',')
    .map((glob) => glob.trim())
    .filter((glob) => glob !== '');
  if (globs.length === 0) throw new InvalidArgumentError('name at least one tool or glob');
  return globs;
}

function positiveNumber(value: string): number {
  const number = Number(value);
  if (!Number.isFinite(number) || number <= 0) throw new InvalidArgumentError('must be a positive number');
  return number;
}

function duration(value: string): number {
  const ms = parseDuration(value);
  if (ms === undefined) throw new InvalidArgumentError('must be a duration such as 90s, 30m, 24h or 7d');
  return ms;
}

export function buildProgram(): Command {
  const program = new Command('keel')
    .description('Durable AI agent goals on Temporal')
    .option('--address <host:port>', 'Temporal frontend (env TEMPORAL_ADDRESS; default 127.0.0.1:7233)')
    .option('--namespace <name>', 'Temporal namespace (env TEMPORAL_NAMESPACE; default "default")')
    .option('--task-queue <name>', 'task queue of keel workers (env KEEL_TASK_QUEUE; default "keel")')
    .showHelpAfterError(false)
    .exitOverride()
    // One line, no usage dump: the first line of commander's message, in keel's own voice.
    .configureOutput({
      writeErr: (text) =>
        process.stderr.write(`keel: ${(text.split('\n')[0] ?? '').replace(/^error: /, '')}\n`),
    });

  const settingsOf = (command: Command): ConnectionSettings =>
    connectionSettings(command.optsWithGlobals<GlobalOptions>());

  const withClient = async <T>(
    command: Command,
    action: (client: Client, settings: ConnectionSettings) => Promise<T>,
  ) => {
    const settings = settingsOf(command);
    const client = await connectClient(settings);
    try {
      return await action(client, settings);
    } catch (error) {
      // A signal or Update to a goal that has ended fails as "not found"; say what happened instead.
      // By name, not instanceof: the CLI loads the Temporal client only when a command needs it.
      const workflowId =
        error instanceof Error && error.name === 'WorkflowNotFoundError'
          ? (error as Error & { workflowId?: string }).workflowId
          : undefined;
      const ended = workflowId ? await closedGoalStatus(client, workflowId) : undefined;
      if (ended) throw new CliError(`goal ${workflowId} has ended (${ended}): it takes no decisions now`);
      throw error;
    } finally {
      await client.connection.close();
    }
  };

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
    .option(
      '--approvers <tier=names>',
      'who may approve a tier, e.g. irreversible=alice,bob (repeatable; default anyone)',
      (value: string, all: string[]) => [...all, value],
      [],
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
    .option('--network', "let run_command use the worker's network (every command then needs approval)")
    .option('--plan', 'plan before acting and backtrack when a step fails')
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
        ...(options.network ? { sandbox: { network: true } } : {}),
        ...(options.tools ? { tools: options.tools } : {}),
        ...(options.reflect ? { reflection: { enabled: true } } : {}),
        ...approvalInput(options),
        ...rulesInput(options),
        ...(options.requireEncryptedDecisions ? { requireEncryptedDecisions: true } : {}),
      };
      // Validated before connecting: bad input is reported even when no server is running.
      const parsed = parseGoalInput(input);
      if (!parsed.ok) throw new CliError(parsed.message);
      await withClient(command, async (client, settings) => {
        if (options.host !== undefined) await mustBeServing(client, settings, options.host);
        const handle = await startGoal(client, {
          input,
          taskQueue: settings.taskQueue,
          workflowId: options.id,
        });
        print(`goal started: ${handle.workflowId}`);
        const ui = await webUiBase({ address: settings.address });
        if (ui) print(`web ui: ${workflowPageUrl(ui, settings.namespace, handle.workflowId)}`);
        const binding = await awaitHostBinding(handle, { timeoutMs: BIND_WAIT_MS });
        if (binding.kind === 'failed')
          throw new CliError(`goal ${handle.workflowId} cannot run: ${binding.message}`);
        if (binding.kind === 'bound') print(`host: ${binding.host} (${describeBinding(binding.via)})`);
        else if (binding.kind === 'pending')
          print('host: not bound yet (no keel worker has taken the goal; it binds when one does)');
        if (!options.wait) return;
        const result = await followGoal(handle, { print });
        describeResult(result).forEach((line) => print(line));
        if (result.status !== 'completed') process.exitCode = 1;
      });
    });

  registerStatusCommands(program, withClient, print);
  registerApprovalCommands(program, withClient, print);

  program
    .command('message')
    .description('send a follow-up message to a running goal (starts a new task in it)')
    .argument('<workflowId>')
    .argument('<text...>')
    .action(async (workflowId: string, words: string[], _options: unknown, command: Command) => {
      await withClient(command, async (client) => {
        await sendUserMessage(goalHandle(client, workflowId), words.join(' '));
        print('message sent');
      });
    });

  program
    .command('watch')
    .description('a live view of a goal (progress, plan, counters, pending approvals) until it ends')
    .argument('<workflowId>')
    .action(async (workflowId: string, _options: unknown, command: Command) => {
      await withClient(command, async (client) => {
        const result = await watchCommandAction({
          client,
          workflowId,
          write: (text) => process.stdout.write(text),
          isTTY: Boolean(process.stdout.isTTY),
        });
        if (result.status !== 'completed') process.exitCode = 1;
      });
    });

  program
    .command('assess')
    .description('ask a goal for a self-assessment at its next turn boundary')
    .argument('<workflowId>')
    .action(async (workflowId: string, _options: unknown, command: Command) => {
      await withClient(command, async (client) => {
        await goalHandle(client, workflowId).signal(assessNowSignal);
        print(`assessment requested for ${workflowId}`);
      });
    });

  program
    .command('ledger')
    .description("a goal's notable events (plans, checkpoints, approvals, budgets, reflections)")
    .argument('<workflowId>')
    .option('--json', 'print the events as one JSON array (like status --json and pending --json)')
    .action(async (workflowId: string, options: { json?: boolean }, command: Command) => {
      await withClient(command, async (client) => {
        const events = await askGoal(
          client,
          workflowId,
          () => goalHandle(client, workflowId).query(ledgerQuery, {}),
          {
            reads: 'the ledger events',
          },
        );
        if (options.json) return print(JSON.stringify(events, null, 2));
        for (const event of events) print(`${event.sequence}  ${event.at}  ${event.kind}  ${event.summary}`);
        if (events.length === 0) print('no events');
      });
    });

  registerReflectionCommands(program);
  registerReviewCommand(program, withClient, print);
  registerRebindCommand(program, withClient, print);
  registerCodecServerCommand(program, print);

  program
    .command('cancel')
    .description('cancel a goal')
    .argument('<workflowId>')
    .action(async (workflowId: string, _options: unknown, command: Command) => {
      await withClient(command, async (client) => {
        await goalHandle(client, workflowId).cancel();
        print(`cancellation requested for ${workflowId}`);
      });
    });

  program
    .command('keygen')
    .description('make an Ed25519 key pair for signed approvals; prints the public key for goal input')
    .requiredOption('--out <file>', 'where to write the private key (PEM, mode 0600; never overwritten)')
    .option('--approver <name>', 'the name the key belongs to (default $USER)')
    .action((options: { out: string; approver?: string }) => {
      const pair = generateApprovalKeyPair();
      try {
        writeFileSync(options.out, pair.privateKeyPem, { mode: 0o600, flag: 'wx' });
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? 'error';
        throw new CliError(`cannot write ${options.out} (${code === 'EEXIST' ? 'it exists' : code})`);
      }
      const approver = options.approver ?? process.env.USER ?? 'me';
      print(`private key: ${options.out} (keep it secret; use with keel approve --sign-key)`);
      print(`public key: ${pair.publicKey}`);
      print(
        `goal input: "approvalSignatures": {"scheme": "ed25519", "keys": {"${approver}": "${pair.publicKey}"}}`,
      );
      print(`or: keel run ... --approval-key ${approver}=${pair.publicKey}`);
    });

  registerWorkerCommand(program);
  registerHostsCommand(program, withClient, print);
  registerToolsCommand(program, withClient, print);

  return program;
}

interface RunOptions {
  criteria: string[];
  workspace: string;
  approvalPolicy: 'auto' | 'ask';
  model?: string;
  answerTokens?: number;
  thinking?: number;
  /** false with --no-cache. */
  cache: boolean;
  cacheTtl?: '5m' | '1h';
  modelPatience?: number;
  toolChoice?: ToolChoiceSetting;
  /** false with --no-parallel-tool-use. */
  parallelToolUse: boolean;
  maxToolCalls?: number;
  maxTurns?: number;
  approvalTimeout?: number;
  reflectionCadence?: number;
  maxUsd?: number;
  maxTokens?: number;
  maxWallTime?: number;
  budget?: boolean;
  judge?: boolean;
  judgeModel?: string;
  network?: boolean;
  tools?: string[];
  approvers: string[];
  approvalKey: string[];
  allow: string[];
  allowIrreversible: string[];
  requireEncryptedDecisions?: boolean;
  forbid: string[];
  plan?: boolean;
  reflect?: boolean;
  id?: string;
  host?: string;
  git?: string;
  gitRef?: string;
  hostTimeout?: number;
  wait?: boolean;
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

/** `--reflection-cadence` and the budget flags as goal input `principles` (validated with the rest). */
function principlesInput(options: RunOptions): Pick<GoalInput, 'principles'> {
  const budget = budgetInput(options);
  const principles = {
    ...(options.reflectionCadence !== undefined ? { cadence: { every: options.reflectionCadence } } : {}),
    ...(budget ? { budget } : {}),
  };
  return Object.keys(principles).length > 0 ? { principles } : {};
}

/** `--allow`, `--allow-irreversible` and `--forbid` as goal input approvalRules. */
function rulesInput(options: RunOptions): Pick<GoalInput, 'approvalRules'> {
  const scope = (text: string, flag: string) => {
    const parsed = parseRuleText(text);
    if (!parsed.ok) throw new CliError(`${flag}: ${parsed.error}`);
    return parsed.scope;
  };
  const rules = [
    ...options.allow.map((text) => ({ ...scope(text, '--allow'), effect: 'allow' as const })),
    ...options.allowIrreversible.map((text) => ({
      ...scope(text, '--allow-irreversible'),
      irreversible: true,
      effect: 'allow' as const,
    })),
    ...options.forbid.map((text) => ({ ...scope(text, '--forbid'), effect: 'forbid' as const })),
  ];
  return rules.length === 0 ? {} : { approvalRules: rules };
}

/** `--approvers tier=a,b` and `--approval-key name=key` as goal input (validated with the rest). */
function approvalInput(options: RunOptions): Pick<GoalInput, 'approvers' | 'approvalSignatures'> {
  const pairs = (values: string[], flag: string) =>
    values.map((value) => {
      const at = value.indexOf('=');
      if (at <= 0) throw new CliError(`${flag} wants name=value, got ${value}`);
      return [value.slice(0, at).trim(), value.slice(at + 1).trim()] as const;
    });
  const approvers: Record<string, string[]> = {};
  for (const [tier, names] of pairs(options.approvers, '--approvers')) {
    approvers[tier] = names.split(',').map((name) => name.trim());
  }
  const keys = Object.fromEntries(pairs(options.approvalKey, '--approval-key'));
  return {
    ...(options.approvers.length > 0 ? { approvers } : {}),
    ...(options.approvalKey.length > 0 ? { approvalSignatures: { scheme: 'ed25519' as const, keys } } : {}),
  };
}

export async function main(argv: string[]): Promise<number> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (error) {
    if (error instanceof CommanderError) {
      // commander already printed its one-line message (help and version exit 0)
      return error.exitCode;
    }
    const address = connectionSettings(program.opts<GlobalOptions>()).address;
    process.stderr.write(`keel: ${describeCliError(error, { address })}\n`);
    return error instanceof CliError ? error.exitCode : 1;
  }
}

if (require.main === module) {
  void main(process.argv.slice(2)).then((code) => process.exit(code));
}
