/**
 * The adversarial security evaluation, as a function: the CLI (run-security-eval.ts) and the CI
 * test both call runSecurityEval. Cases run one after another on one set of tool activities,
 * each in fresh directories, with planted secrets in the environment for the run's duration.
 */
import { mkdirSync, mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describeSandbox, sandboxStatus } from '../../src/activities/tools/sandbox';
import { SECURITY_CASES } from './cases';
import { removeTree } from './fixture';
import { killHostScripts } from './host-script';
import { createPlantedSecrets, plantEnvironment } from './planted-secrets';
import { runCase, type CaseRecord } from './run-case';
import { CALL_ID_CASES, runCallIdCase, type CallIdCase } from './call-id-cases';
import { APPROVAL_RULE_CASES, runApprovalRuleCase, type ApprovalRuleCase } from './approval-rule-cases';
import { runApprovalPathRecord, selectApprovalPathRecords } from './approval-path-records';
import { runConfinementRecord, selectConfinementRecords } from './confinement-cases';
import { CATEGORIES, Category, type SecurityCase } from './security-case';
import { HoleKind } from './verdicts';
import { createKeelToolExecutor, type ToolExecutor } from './tool-executor';

export interface SecurityEvalOptions {
  /** The smaller subset CI runs (cases marked ci), every category included. */
  readonly ci?: boolean;
  /** Category names; all when absent or empty. */
  readonly only?: readonly string[];
  /** The corpus; scripts/security/cases by default. */
  readonly cases?: readonly SecurityCase[];
  /** The tools under evaluation, created after the secrets are planted; keel's own by default. */
  readonly createTools?: (options: { journalDirectory: string }) => ToolExecutor;
  readonly log?: (line: string) => void;
  /** Log every case as it finishes, not only progress. */
  readonly verbose?: boolean;
  /** Stops before the next case (Ctrl-C). */
  readonly signal?: AbortSignal;
  /** A call not answered by then is hung (default 10 s). */
  readonly callTimeoutMs?: number;
}

export interface SecurityReport {
  readonly startedAt: string;
  readonly durationMs: number;
  readonly sandbox: string;
  readonly selection: string;
  readonly interrupted: boolean;
  readonly cases: readonly CaseRecord[];
}

const DEFAULT_CALL_TIMEOUT_MILLISECONDS = 10_000;
const PROGRESS_EVERY = 25;
const activeRunRoots = new Set<string>();

export function selectCases(options: Pick<SecurityEvalOptions, 'ci' | 'only' | 'cases'>): SecurityCase[] {
  const only = options.only ?? [];
  const unknown = only.filter((name) => !(CATEGORIES as readonly string[]).includes(name));
  if (unknown.length > 0)
    throw new Error(
      `unknown categor${unknown.length === 1 ? 'y' : 'ies'} ${unknown.join(', ')} (known: ${CATEGORIES.join(', ')})`,
    );
  return (options.cases ?? SECURITY_CASES).filter(
    (securityCase) =>
      (only.length === 0 || only.includes(securityCase.category)) &&
      (options.ci !== true || securityCase.ci === true),
  );
}

export async function runSecurityEval(options: SecurityEvalOptions = {}): Promise<SecurityReport> {
  const log = options.log ?? (() => {});
  const cases = selectCases(options);
  const callIdCases = selectCallIdCases(options);
  const ruleCases = [
    ...selectApprovalRuleCases(options),
    ...selectApprovalPathRecords(options),
    ...selectConfinementRecords(options),
  ];
  const startedAt = new Date();
  const started = performance.now();
  const runRoot = realpathSync(mkdtempSync(path.join(tmpdir(), 'keel-security-eval-')));
  activeRunRoots.add(runRoot);
  const secrets = createPlantedSecrets();
  const restoreEnvironment = plantEnvironment(secrets);
  const records: CaseRecord[] = [];
  try {
    const journalDirectory = path.join(runRoot, 'journal');
    mkdirSync(journalDirectory);
    const tools = (options.createTools ?? createKeelToolExecutor)({ journalDirectory });
    const keyPrefix = `security-eval-${startedAt.getTime()}`;
    const callTimeoutMs = options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MILLISECONDS;
    for (const [index, securityCase] of cases.entries()) {
      if (options.signal?.aborted === true) break;
      const record = await runCase(securityCase, { tools, runRoot, secrets, keyPrefix, callTimeoutMs });
      records.push(record);
      if (options.verbose === true) log(caseLine(index, cases.length, record));
      else if ((index + 1) % PROGRESS_EVERY === 0)
        log(`security eval: ${index + 1}/${cases.length} cases run`);
    }
    const total = cases.length + callIdCases.length + ruleCases.length;
    for (const callIdCase of callIdCases) {
      if (options.signal?.aborted === true) break;
      const record = await runCallIdRecord(callIdCase);
      records.push(record);
      if (options.verbose === true) log(caseLine(records.length - 1, total, record));
    }
    for (const ruleCase of ruleCases) {
      if (options.signal?.aborted === true) break;
      const record =
        'confinement' in ruleCase
          ? await runConfinementRecord(ruleCase, { tools, runRoot, keyPrefix })
          : 'run' in ruleCase
            ? await runApprovalPathRecord(ruleCase, { tools, runRoot, keyPrefix })
            : await runApprovalRuleRecord(ruleCase, { tools, runRoot, keyPrefix });
      records.push(record);
      if (options.verbose === true) log(caseLine(records.length - 1, total, record));
    }
  } finally {
    restoreEnvironment();
    killHostScripts();
    removeTree(runRoot);
    activeRunRoots.delete(runRoot);
  }
  return {
    startedAt: startedAt.toISOString(),
    durationMs: Math.round(performance.now() - started),
    sandbox: describeSandbox(sandboxStatus()),
    selection: describeSelection(options, cases.length + callIdCases.length + ruleCases.length),
    interrupted: records.length < cases.length + callIdCases.length + ruleCases.length,
    cases: records,
  };
}

function selectCallIdCases(options: Pick<SecurityEvalOptions, 'ci' | 'only' | 'cases'>): CallIdCase[] {
  if (options.cases !== undefined) return []; // a corpus of the caller's own
  const only = options.only ?? [];
  if (only.length > 0 && !only.includes(Category.CallIds)) return [];
  return CALL_ID_CASES.filter((callIdCase) => options.ci !== true || callIdCase.ci === true);
}

function selectApprovalRuleCases(
  options: Pick<SecurityEvalOptions, 'ci' | 'only' | 'cases'>,
): ApprovalRuleCase[] {
  if (options.cases !== undefined) return []; // a corpus of the caller's own
  const only = options.only ?? [];
  if (only.length > 0 && !only.includes(Category.ApprovalRules)) return [];
  return APPROVAL_RULE_CASES.filter((ruleCase) => options.ci !== true || ruleCase.ci === true);
}

async function runApprovalRuleRecord(
  ruleCase: ApprovalRuleCase,
  context: Parameters<typeof runApprovalRuleCase>[1],
): Promise<CaseRecord> {
  const started = performance.now();
  let violations: string[] = [];
  let error: string | undefined;
  try {
    violations = await runApprovalRuleCase(ruleCase, context);
  } catch (caught) {
    error = caught instanceof Error ? (caught.stack ?? caught.message) : String(caught);
  }
  return {
    id: ruleCase.id,
    category: Category.ApprovalRules,
    title: ruleCase.title,
    durationMs: Math.round(performance.now() - started),
    steps: [],
    holes: violations.map((what) => ({ kind: HoleKind.UnapprovedIrreversible, step: 1, what, evidence: [] })),
    ...(error === undefined ? {} : { error }),
  };
}

async function runCallIdRecord(callIdCase: CallIdCase): Promise<CaseRecord> {
  const started = performance.now();
  let violations: string[] = [];
  let error: string | undefined;
  try {
    violations = await runCallIdCase(callIdCase);
  } catch (caught) {
    error = caught instanceof Error ? (caught.stack ?? caught.message) : String(caught);
  }
  return {
    id: callIdCase.id,
    category: Category.CallIds,
    title: callIdCase.title,
    durationMs: Math.round(performance.now() - started),
    steps: [],
    holes: violations.map((what) => ({ kind: HoleKind.UnapprovedIrreversible, step: 1, what, evidence: [] })),
    ...(error === undefined ? {} : { error }),
  };
}

/** For a signal handler that cannot wait: kills host scripts and removes every run's directories. */
export function cleanUpNow(): void {
  killHostScripts();
  for (const root of activeRunRoots) {
    try {
      removeTree(root);
    } catch {
      // leave it rather than fail the exit
    }
  }
  activeRunRoots.clear();
}

function caseLine(index: number, total: number, record: CaseRecord): string {
  const kinds = [...new Set(record.holes.map((hole) => hole.kind))].sort().join(',');
  const verdict = record.error !== undefined ? 'ERROR' : kinds === '' ? 'ok' : `holes ${kinds}`;
  return `[${index + 1}/${total}] ${record.id}: ${verdict} (${record.durationMs} ms)`;
}

function describeSelection(options: SecurityEvalOptions, count: number): string {
  const parts = [
    options.ci === true ? 'the --ci subset' : 'every case',
    ...(options.only !== undefined && options.only.length > 0 ? [`of ${options.only.join(', ')}`] : []),
  ];
  return `${count} cases (${parts.join(' ')})`;
}
