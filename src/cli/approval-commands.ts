import { hostname } from 'node:os';
import { Option, type Command } from 'commander';
import type { Client } from '@temporalio/client';
import type { KeyObject } from 'node:crypto';
import { loadSigningKey } from '../client/approval-keys';
import {
  ruleText,
  type ApprovalRule,
  type DecisionRule,
  type RuleScope,
} from '../workflows/approvals/approval-rule';
import { addRule, emptyRules, ruleFor } from '../workflows/approvals/rule-book';
import type { PendingApprovalView } from '../workflows/goal/messages';
import { visibleJson, visibleText } from '../workflows/tools/call-text';
import { askGoal } from './ask-goal';
import { routeDecision } from './child-call-route';
import { CliError } from './cli-error';
import { parseDuration } from '../workflows/common/duration';
import {
  addApprovalRule,
  approvalRules,
  decideApproval,
  deliverBulkDecision,
  deliverDecision,
  goalHandle,
  revokeApprovalRule,
} from './lazy-modules';
import { bulkNotSentLine, bulkSignalledLine, signalledDecisionLine } from '../client/no-worker';
import { ExitCode } from './exit-codes';
import { MAX_DURATION_MS } from './flag-parsers';
import { ruleFlag } from './rule-flag';

type WithClient = <T>(command: Command, action: (client: Client) => Promise<T>) => Promise<T>;

/**
 * `keel approve` / `keel deny` (one call, or every pending call with --all, optionally those a
 * rule text matches), with a rule for later calls (`--rule`, `--forbid`), and `keel rules` to
 * list, add and revoke a goal's rules (docs/approvals-and-security.md, Approval rules).
 */
export function registerApprovalCommands(
  program: Command,
  withClient: WithClient,
  print: (line: string) => void,
): void {
  for (const approved of [true, false]) registerDecisionCommand(program, withClient, print, approved);
  registerRulesCommand(program, withClient, print);
}

function registerDecisionCommand(
  program: Command,
  withClient: WithClient,
  print: (line: string) => void,
  approved: boolean,
): void {
  const decision = program
    .command(approved ? 'approve' : 'deny')
    .description(
      approved
        ? 'approve a pending tool call (or every pending one: --all)'
        : 'deny a pending tool call (or every pending one: --all)',
    )
    .argument('<workflowId>')
    .argument('[callId]', 'the call to decide (omit with --all)')
    .option('--all', 'decide every pending call of the goal in one Update (all accepted, or none)')
    .option('--match <rule>', 'with --all: only calls this rule text matches, e.g. "run_command: npm test*"')
    .option('--approver <name>', 'who decides (default $USER, else the OS user)')
    .option('--reason <text>', 'why')
    .option('--signal', 'send a fire-and-forget signal instead of an Update')
    .option('--sign-key <file>', 'sign the decision with this Ed25519 private key (env KEEL_APPROVAL_KEY)');
  if (approved) {
    decision
      .option(
        '--changes <digest>',
        'approve only the held changes `keel pending` showed with this digest (sha256:…); any other set is refused',
      )
      .option(
        '--rule [pattern]',
        "also approve later calls of this tool matching the pattern in this goal (default: exactly this call's command, path or input)",
      )
      .option('--irreversible', 'with --rule: the rule covers irreversible calls too')
      .option('--until <time>', 'with --rule: until when, a duration (2h) or an ISO time');
  } else {
    decision
      .option(
        '--forbid [pattern]',
        "also refuse later calls of this tool matching the pattern, without asking (default: exactly this call's)",
      )
      .option('--until <time>', 'with --forbid: until when, a duration (2h) or an ISO time');
  }
  const doNotAskAgain = new Option(
    '--do-not-ask-again',
    'remember what this call is about (tool and targets) and refuse later calls with that intent without asking',
  );
  // Accepted by approve only to be refused in words, rather than as an unknown option.
  decision.addOption(approved ? doNotAskAgain.hideHelp() : doNotAskAgain);
  decision.action(
    async (rootWorkflowId: string, asked: string | undefined, options: DecideOptions, command: Command) => {
      // A child's call, as its root lists it, is decided on the child (child-call-route.ts).
      const { workflowId, callId } = routeDecision(rootWorkflowId, asked);
      if (approved && options.doNotAskAgain) {
        throw new CliError(
          `--do-not-ask-again applies to denials only: keel deny ${workflowId} ${callId ?? '<callId>'} --do-not-ask-again`,
        );
      }
      if (options.all === true && callId !== undefined) throw new CliError('name a call or --all, not both');
      if (options.all !== true && callId === undefined)
        throw new CliError(`name the call to decide (keel pending lists them), or --all`);
      if (options.match !== undefined && options.all !== true) throw new CliError('--match needs --all');
      if (options.changes !== undefined && options.all === true)
        throw new CliError("--changes names one call's held changes: name the call, not --all");
      if (options.all === true && options.signal === true)
        throw new CliError('--all sends one Update; it cannot be a signal');
      const match = options.match === undefined ? undefined : ruleFlag(options.match, '--match');
      const rule = decisionRule(approved ? options.rule : options.forbid, options);
      const signingKey = signingKeyOf(options.signKey);
      await withClient(command, async (client) => {
        const handle = goalHandle(client, workflowId);
        const verb = approved ? 'approved' : 'denied';
        const common = {
          approved,
          ...(options.approver === undefined ? {} : { approver: options.approver }),
          ...(options.reason === undefined ? {} : { reason: options.reason }),
          ...(signingKey ? { signingKey } : {}),
          ...(options.doNotAskAgain ? { doNotAskAgain: true } : {}),
          ...(rule === undefined ? {} : { rule }),
          ...(options.changes === undefined ? {} : { changesDigest: options.changes }),
          origin: `keel cli on ${hostname()}`,
        };
        if (options.all === true) {
          const delivery = await deliverBulkDecision({
            client,
            handle,
            decision: common,
            select: (pending) => pending.filter((call) => match === undefined || matchesText(match, call)),
          });
          if (delivery.kind === 'none-selected')
            throw new CliError(
              `no pending call of ${workflowId}${options.match === undefined ? '' : ` matches ${options.match}`}`,
            );
          if (delivery.kind === 'not-listed')
            throw new CliError(bulkNotSentLine(delivery.noWorker, approved), ExitCode.NoWorker);
          if (delivery.kind === 'signalled') {
            print(bulkSignalledLine(delivery.noWorker, approved, delivery.callIds));
            process.exitCode = ExitCode.NoWorker;
            return;
          }
          for (const receipt of delivery.receipts)
            print(`${receipt.approved ? 'approved' : 'denied'}: ${receipt.callId} ${receipt.toolSummary}`);
          return;
        }
        const remembered = options.doNotAskAgain ? '; this intent will be refused without asking' : '';
        const ruled =
          rule === undefined
            ? ''
            : approved
              ? '; later calls the rule covers are approved at once (keel rules lists it)'
              : '; later calls the rule covers are refused at once (keel rules lists it)';
        if (options.signal === true) {
          await decideApproval(handle, { ...common, callId: callId ?? '', via: 'signal' });
          print(`${verb} (signal sent for ${callId})${remembered}${ruled}`);
          return;
        }
        const delivery = await deliverDecision(client, handle, { ...common, callId: callId ?? '' });
        if (delivery.kind === 'signalled') {
          // Not judged yet: whether it is taken (and its rule added) shows once a worker runs the goal.
          print(signalledDecisionLine(delivery.noWorker, { approved, callId: callId ?? '' }));
          process.exitCode = ExitCode.NoWorker;
          return;
        }
        print(`${verb}: ${delivery.receipt.toolSummary}${remembered}${ruled}`);
      });
    },
  );
}

function registerRulesCommand(program: Command, withClient: WithClient, print: (line: string) => void): void {
  program
    .command('rules')
    .description("a goal's approval rules: list them, add one (--allow, --forbid) or revoke one (--revoke)")
    .argument('<workflowId>')
    .addOption(new Option('--allow <rule>', 'approve matching calls at once, e.g. "run_command: npm test*"'))
    .addOption(new Option('--forbid <rule>', 'refuse matching calls at once, e.g. "run_command: rm *"'))
    .addOption(new Option('--revoke <ruleId>', 'revoke a rule (rule-3)'))
    .option('--irreversible', 'with --allow: the rule covers irreversible calls too')
    .option('--until <time>', 'with --allow/--forbid: until when, a duration (2h) or an ISO time')
    .option('--approver <name>', 'who adds or revokes it (default $USER, else the OS user)')
    .option('--reason <text>', 'why; the model reads it when a forbid rule refuses a call')
    .option('--sign-key <file>', 'sign the change with this Ed25519 private key (env KEEL_APPROVAL_KEY)')
    .option('--json', 'print the rules as one JSON array')
    .action(async (workflowId: string, options: RulesOptions, command: Command) => {
      const changes = [options.allow, options.forbid, options.revoke].filter((value) => value !== undefined);
      if (changes.length > 1) throw new CliError('one change at a time: --allow, --forbid or --revoke');
      if (options.irreversible && options.allow === undefined)
        throw new CliError('--irreversible goes with --allow');
      if (options.until !== undefined && options.allow === undefined && options.forbid === undefined)
        throw new CliError('--until goes with --allow or --forbid');
      const signingKey = signingKeyOf(options.signKey);
      const change = {
        ...(options.approver === undefined ? {} : { approver: options.approver }),
        ...(options.reason === undefined ? {} : { reason: options.reason }),
        ...(signingKey ? { signingKey } : {}),
      };
      const text = options.allow ?? options.forbid;
      const scope =
        text === undefined
          ? undefined
          : {
              ...ruleFlag(text, options.allow === undefined ? '--forbid' : '--allow'),
              irreversible: options.irreversible === true,
              ...(options.until === undefined ? {} : { until: untilTime(options.until) }),
            };
      await withClient(command, async (client) => {
        const handle = goalHandle(client, workflowId);
        if (scope !== undefined) {
          const effect = options.allow === undefined ? 'forbid' : 'allow';
          const rule = await askGoal(
            client,
            workflowId,
            () => addApprovalRule(handle, { ...scope, effect }, change),
            {
              changes: 'the new rule',
            },
          );
          print(`added ${rule.id}: ${ruleText(rule)}`);
          return;
        }
        if (options.revoke !== undefined) {
          const revoke = options.revoke;
          const rule = await askGoal(client, workflowId, () => revokeApprovalRule(handle, revoke, change), {
            changes: `the revocation of ${revoke}`,
          });
          print(`revoked ${rule.id}: ${ruleText(rule)}`);
          return;
        }
        const rules = await askGoal(client, workflowId, () => approvalRules(handle), { reads: 'the rules' });
        if (options.json) return print(visibleJson(rules));
        for (const line of ruleLines(rules)) print(line);
      });
    });
}

/** `keel rules`: a line per rule, newest last, with who made it, from where, and what became of it. */
export function ruleLines(rules: readonly ApprovalRule[], nowMs = Date.now()): string[] {
  if (rules.length === 0) return ['no approval rules (keel rules <goal> --allow "tool: pattern" adds one)'];
  return rules.map((rule) => {
    const state =
      rule.revoked !== undefined
        ? `revoked by ${rule.revoked.by} at ${rule.revoked.at}`
        : rule.until !== undefined && Date.parse(rule.until) <= nowMs
          ? 'expired'
          : 'in force';
    const why = rule.reason.trim() === '' ? '' : ` — ${visibleText(rule.reason, { oneLine: true })}`;
    return `${rule.id}  ${visibleText(ruleText(rule), { oneLine: true })}  by ${rule.by} (${rule.source})  ${state}${why}`;
  });
}

/** Whether a rule text given to --match covers a pending call (as an allow rule would, tier aside). */
function matchesText(scope: RuleScope, call: PendingApprovalView): boolean {
  const added = addRule(emptyRules(), {
    ...scope,
    irreversible: true,
    effect: 'allow',
    source: 'goal-input',
    by: 'match',
    reason: '',
    createdAt: '',
  });
  if (!added.ok) return false;
  const anyone = { mutating: ['*'], irreversible: ['*'] };
  return ruleFor(added.state, call, { nowMs: 0, approvers: anyone }) !== undefined;
}

function decisionRule(
  pattern: string | boolean | undefined,
  options: DecideOptions,
): DecisionRule | undefined {
  if (pattern === undefined || pattern === false) {
    if (options.irreversible === true) throw new CliError('--irreversible goes with --rule');
    if (options.until !== undefined) throw new CliError('--until goes with --rule or --forbid');
    return undefined;
  }
  return {
    ...(typeof pattern === 'string' ? { pattern } : {}),
    ...(options.irreversible === true ? { irreversible: true } : {}),
    ...(options.until === undefined ? {} : { until: untilTime(options.until) }),
  };
}

/** A duration from now (2h, 30m) or an ISO time, as the ISO time a rule keeps. */
export function untilTime(text: string, nowMs = Date.now()): string {
  const duration = parseDuration(text);
  if (duration !== undefined && duration > MAX_DURATION_MS)
    throw new CliError(`--until takes a duration of at most 365d (or an ISO time), got ${text}`);
  if (duration !== undefined) return new Date(nowMs + duration).toISOString();
  const at = Date.parse(text);
  if (Number.isNaN(at) || !/^\d{4}-\d{2}-\d{2}T/.test(text))
    throw new CliError(
      `--until wants a duration (2h, 30m) or an ISO time (2030-01-01T12:00:00Z), got ${text}`,
    );
  return new Date(at).toISOString();
}

function signingKeyOf(file: string | undefined): KeyObject | undefined {
  const source = file ?? process.env.KEEL_APPROVAL_KEY;
  if (!source) return undefined;
  try {
    return loadSigningKey(source);
  } catch (error) {
    throw new CliError(error instanceof Error ? error.message : String(error));
  }
}

interface DecideOptions {
  all?: boolean;
  match?: string;
  approver?: string;
  reason?: string;
  signal?: boolean;
  signKey?: string;
  doNotAskAgain?: boolean;
  rule?: string | boolean;
  forbid?: string | boolean;
  irreversible?: boolean;
  until?: string;
  changes?: string;
}

interface RulesOptions {
  allow?: string;
  forbid?: string;
  revoke?: string;
  irreversible?: boolean;
  until?: string;
  approver?: string;
  reason?: string;
  signKey?: string;
  json?: boolean;
}
