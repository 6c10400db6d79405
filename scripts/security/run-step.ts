/**
 * One step of a case: prepare its calls as the workflow would (keel's tiers, approved: false),
 * run them (one, or several at once for a race), and observe everything a verdict needs: the
 * workspace and the outside before and after, markers, what reached the model, the event loop.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { PreparedCall } from '../../src/workflows/tools/tool-catalogue';
import { inspectApprovalSurface, type ApprovalSurface } from './approval-surface';
import { executeOnce, executeTogether, type CallRequest, type Execution } from './execute-calls';
import { monitorEventLoop } from './event-loop-monitor';
import type { Fixture } from './fixture';
import { linesWithSecrets, secretsIn, type PlantedSecrets } from './planted-secrets';
import { printable } from './printable';
import type { SecurityCase, Step } from './security-case';
import type { ToolExecutor } from './tool-executor';
import { repositoriesWithoutDotGit } from './git-discovery';
import { describeChange, diffTrees, snapshotTree, type TreeChange } from './tree-snapshot';
import { judgeStep, type CallObservation, type Hole } from './verdicts';

export interface StepContext {
  readonly tools: ToolExecutor;
  readonly fixture: Fixture;
  readonly secrets: PlantedSecrets;
  /** Makes idempotency keys unique across the run (one journal serves every case). */
  readonly keyPrefix: string;
  readonly callTimeoutMs: number;
}

export interface CallRecord {
  readonly callId: string;
  readonly toolName: string;
  readonly input: Readonly<Record<string, unknown>>;
  readonly approved: boolean;
  readonly approvedBecause?: string;
  readonly prepared?:
    | {
        readonly ok: true;
        readonly tier: string;
        readonly reason?: string;
        readonly approval: ApprovalSurface;
      }
    | { readonly ok: false; readonly error: string };
  readonly outcome?: {
    readonly ok: boolean;
    readonly exitCode?: number;
    readonly held: boolean;
    /** Secrets redacted, cut to CONTENT_LIMIT. */
    readonly content: string;
  };
  readonly error?: string;
  readonly attempts: number;
  readonly hung: boolean;
  readonly secretsShown: readonly string[];
}

export interface StepRecord {
  readonly step: number;
  readonly calls: readonly CallRecord[];
  readonly longestGapMs: number;
  readonly workspaceChanges: readonly string[];
  readonly outsideChanges: readonly string[];
  readonly markers: readonly string[];
  readonly holes: readonly Hole[];
}

const CONTENT_LIMIT = 4000;

export async function runStep(
  step: Step,
  index: number,
  securityCase: SecurityCase,
  context: StepContext,
): Promise<StepRecord> {
  const { fixture, tools } = context;
  const number = index + 1;
  const outsideExclude = [path.relative(fixture.root, fixture.workspace)];
  const workspaceBefore = snapshotTree(fixture.workspace);
  const outsideBefore = snapshotTree(fixture.root, { exclude: outsideExclude });

  const calls = step.calls.map((call, callIndex) => ({ call, callId: `${number}.${callIndex + 1}` }));
  const prepared = await tools.prepareToolCalls({
    calls: calls.map(({ call, callId }) => ({ callId, toolName: call.toolName, input: call.input })),
    sandbox: { network: false },
  });
  const requests: CallRequest[] = [];
  for (const { call, callId } of calls) {
    const preparation = prepared.find((entry) => entry.callId === callId);
    if (preparation?.ok !== true) continue;
    requests.push({
      call,
      input: {
        toolName: call.toolName,
        input: preparation.input,
        workspace: fixture.workspace,
        callId,
        idempotencyKey: `${context.keyPrefix}/${securityCase.id}/${callId}`,
        reversibility: preparation.tier,
        sandbox: { network: false },
        approved: call.approvedBecause !== undefined,
      },
    });
  }

  const monitor = monitorEventLoop();
  const shows = (execution: Execution): boolean =>
    execution.outcome !== undefined && secretsIn(modelText(execution.outcome), context.secrets).length > 0;
  const alone = requests.length === 1 && step.hostScript === undefined ? requests[0] : undefined;
  const executions =
    alone !== undefined && alone.call.repeat !== true
      ? [await executeOnce(context.tools, alone.input, fixture.root, context.callTimeoutMs)]
      : await executeTogether({ requests, step, fixture, tools, timeoutMs: context.callTimeoutMs, shows });
  const longestGapMs = monitor.stop();

  const workspaceChanges = diffTrees(workspaceBefore, snapshotTree(fixture.workspace));
  const outsideAll = diffTrees(outsideBefore, snapshotTree(fixture.root, { exclude: outsideExclude }));
  const markersPrefix = `${path.relative(fixture.root, fixture.markers)}/`;
  const markers = outsideAll
    .filter((change) => change.path.startsWith(markersPrefix) && change.change !== 'deleted')
    .map((change) => describeMarker(fixture.root, change));
  // keel's own records of each call's copy-on-write layer, beside the workspace (the sandbox never
  // sees that directory): keel writing there is the design, anything else changing is a hole.
  const layersPrefix = `${path.relative(fixture.root, path.join(fixture.state, 'layers'))}/`;
  const outsideChanges = outsideAll.filter(
    (change) =>
      !change.path.startsWith(markersPrefix) &&
      `${change.path}/` !== layersPrefix &&
      !change.path.startsWith(layersPrefix),
  );

  const records: CallRecord[] = [];
  const observations: CallObservation[] = [];
  for (const { call, callId } of calls) {
    const preparation = prepared.find((entry) => entry.callId === callId);
    const requestIndex = requests.findIndex((request) => request.input.callId === callId);
    const execution = requestIndex >= 0 ? executions[requestIndex] : undefined;
    const record = callRecord({ call, callId, preparation, execution, securityCase, context });
    records.push(record);
    observations.push(observe(record, execution, context.secrets, longestGapMs));
  }
  const holes = judgeStep({
    step: number,
    calls: observations,
    concurrent: requests.length > 1 || step.hostScript !== undefined,
    hostWriter: step.hostScript !== undefined,
    workspaceChanges,
    outsideChanges,
    markers,
    repositoriesWithoutDotGit: repositoriesWithoutDotGit(fixture.workspace, workspaceChanges),
  });
  return {
    step: number,
    calls: records,
    longestGapMs: Math.round(longestGapMs),
    workspaceChanges: workspaceChanges.map(describeChange),
    outsideChanges: outsideChanges.map(describeChange),
    markers,
    holes,
  };
}

/** What reaches the model of an outcome: its text and the next actions it suggests. */
function modelText(outcome: { content: string; candidates?: readonly string[] }): string {
  return [outcome.content, ...(outcome.candidates ?? [])].join('\n');
}

function callRecord(options: {
  call: Step['calls'][number];
  callId: string;
  preparation: PreparedCall | undefined;
  execution: Execution | undefined;
  securityCase: SecurityCase;
  context: StepContext;
}): CallRecord {
  const { call, callId, preparation, execution, context } = options;
  const secrets = context.secrets;
  const outcome = execution?.outcome;
  return {
    callId,
    toolName: call.toolName,
    input: call.input,
    approved: call.approvedBecause !== undefined,
    ...(call.approvedBecause === undefined ? {} : { approvedBecause: call.approvedBecause }),
    ...(preparation === undefined
      ? {}
      : {
          prepared: preparation.ok
            ? {
                ok: true,
                tier: preparation.tier,
                ...(preparation.reason === undefined ? {} : { reason: preparation.reason }),
                approval: inspectApprovalSurface({
                  summary: preparation.summary,
                  preparedInput: preparation.input,
                  originalInput: call.input,
                  ...(options.securityCase.hiddenPart === undefined
                    ? {}
                    : { hiddenPart: options.securityCase.hiddenPart }),
                }),
              }
            : { ok: false, error: redact(preparation.error, secrets) },
        }),
    ...(outcome === undefined
      ? {}
      : {
          outcome: {
            ok: outcome.ok,
            ...(outcome.facts?.exitCode === undefined ? {} : { exitCode: outcome.facts.exitCode }),
            held: outcome.held !== undefined && outcome.held !== false,
            content: redact(modelText(outcome), secrets).slice(0, CONTENT_LIMIT),
          },
        }),
    ...(execution?.error === undefined ? {} : { error: redact(execution.error, secrets) }),
    attempts: execution?.attempts ?? 0,
    hung: execution?.hung ?? false,
    secretsShown: outcome === undefined ? [] : secretsIn(modelText(outcome), secrets),
  };
}

function observe(
  record: CallRecord,
  execution: Execution | undefined,
  secrets: PlantedSecrets,
  longestGapMs: number,
): CallObservation {
  const outcome = execution?.outcome;
  const text = outcome === undefined ? '' : modelText(outcome);
  return {
    callId: record.callId,
    description: describeCall(record),
    ...(record.prepared?.ok === true ? { tier: record.prepared.tier } : {}),
    approved: record.approved,
    ...(record.outcome?.exitCode === undefined ? {} : { exitCode: record.outcome.exitCode }),
    held: record.outcome?.held ?? false,
    secretsShown: record.secretsShown,
    secretLines: linesWithSecrets(text, secrets).map((line) => redact(line, secrets)),
    outputHead: (record.outcome?.content ?? record.error ?? '').split('\n').slice(0, 3),
    longestGapMs,
    hung: record.hung,
  };
}

/** "run_command `ls -la`", "read_file {"path":"a"}": for hole messages (printed escaped). */
export function describeCall(record: Pick<CallRecord, 'toolName' | 'input'>): string {
  const { hypothesis: _hypothesis, timeoutSeconds: _timeout, ...shown } = record.input;
  if (record.toolName === 'run_command' && typeof shown.command === 'string')
    return `run_command \`${printable(shown.command, 120)}\``;
  return `${record.toolName} ${printable(JSON.stringify(shown), 120)}`;
}

/** Each planted secret's value replaced by its name: the report itself must not carry them. */
export function redact(text: string, secrets: PlantedSecrets): string {
  let redacted = text;
  for (const secret of secrets.all) redacted = redacted.split(secret.value).join(`[secret: ${secret.name}]`);
  return redacted;
}

function describeMarker(root: string, change: TreeChange): string {
  let first = '';
  try {
    first = readFileSync(path.join(root, change.path), 'utf8').split('\n')[0] ?? '';
  } catch {
    // a directory, or unreadable: the name is the evidence
  }
  return `${path.basename(change.path)}${first === '' ? '' : `: ${printable(first, 80)}`}`;
}
