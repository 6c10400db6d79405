import { Client, Connection } from '@temporalio/client';
import { bundleWorkflowCode } from '@temporalio/worker';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { freePort, startDevServer, type DevServer } from '../../src/dev-server/dev-server';
import { startScriptedMessagesServer } from '../../src/scripted-model/scripted-messages-server';
import { WORKFLOWS_PATH } from '../../src/worker';
import { goalWorkflow } from '../../src/workflows/goal/goal-workflow';
import { ledgerQuery } from '../../src/workflows/goal/messages';
import type { LedgerEvent } from '../../src/workflows/common/ledger';
import { startWorkerProcess, type WorkerProcess } from '../../test/support/worker-process';
import { startApprover } from './chaos-approver';
import { CHAOS_GOAL, EFFECTS_FILE, chaosScenario, countEffects, effectIndexIn } from './chaos-goal';
import { disruptionSchedule } from './chaos-schedule';
import { quietLogger } from '../../test/support/quiet-logger';

export interface ChaosOptions {
  /** Irreversible appends the goal makes, one a turn, each approved by signal. */
  readonly calls: number;
  /** Worker kills (SIGKILL) during the disturbed run. */
  readonly kills: number;
  /** Dev server restarts (same port and SQLite file) during the disturbed run. */
  readonly restarts: number;
  readonly seed: number;
  readonly minDelayMs: number;
  readonly maxDelayMs: number;
  /** Give up on a goal that has not ended after this long. */
  readonly goalTimeoutMs: number;
  readonly log: (line: string) => void;
}

export interface RunFigures {
  readonly status: string;
  readonly durationMs: number;
  readonly toolCalls: number;
  readonly modelRequests: number;
  readonly effectLines: number;
}

export interface UnknownOutcome {
  readonly callId: string;
  readonly effect: number | undefined;
  /** As the tool's journal told it: true, or 'unknown' when no journal could say. */
  readonly began: unknown;
  /** Whether the effect is in the file after all. */
  readonly effectPresent: boolean;
}

export interface ChaosReport {
  readonly options: Omit<ChaosOptions, 'log'>;
  readonly undisturbed: RunFigures;
  readonly disturbed: RunFigures;
  readonly killsDone: number;
  readonly restartsDone: number;
  readonly completed: boolean;
  readonly duplicatedEffects: number[];
  readonly missingEffects: number[];
  readonly unknownOutcomes: UnknownOutcome[];
  /** Effects missing that no unknown outcome accounts for: lost silently. */
  readonly unexplainedMissing: number[];
  readonly approvalsSent: number;
  /** Approvals the server accepted that the goal never decided. */
  readonly lostApprovals: string[];
  readonly finalStateEqual: boolean;
}

/**
 * Runs the chaos experiment: an undisturbed goal, then the same goal while the worker is killed
 * and the dev server restarted at seeded random moments. Everything is real and its own: a dev
 * server on a SQLite file, worker processes, a loopback model, approvals sent as signals.
 */
export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const { log } = options;
  const root = mkdtempSync(path.join(tmpdir(), 'keel-chaos-'));
  let server: DevServer | undefined;
  let worker: WorkerProcess | undefined;
  const scripted = await startScriptedMessagesServer({ scenarios: [chaosScenario(options.calls)] });
  try {
    log('chaos: bundling the workflow code once, so each worker restart takes about a second');
    const { code } = await bundleWorkflowCode({
      workflowsPath: WORKFLOWS_PATH,
      failureConverterPath: dataConverterFromEnv().failureConverterPath,
      payloadConverterPath: dataConverterFromEnv().payloadConverterPath,
      logger: quietLogger,
    });
    const bundlePath = path.join(root, 'workflow-bundle.js');
    writeFileSync(bundlePath, code);
    const port = await freePort();
    const dbFile = path.join(root, 'temporal.db');
    const startServer = () => startDevServer({ dbFile, port });
    server = await startServer();
    const address = server.address;
    const connection = await Connection.connect({ address });
    const client = new Client({ connection, dataConverter: dataConverterFromEnv() });
    const taskQueue = `keel-chaos-${process.pid}-${Date.now()}`;
    const startWorker = () =>
      startWorkerProcess({
        address,
        taskQueue,
        modelBaseUrl: scripted.url,
        journalDirectory: path.join(root, 'journal'),
        env: { KEEL_WORKFLOW_BUNDLE: bundlePath },
      });
    worker = await startWorker();

    const runGoal = async (name: string, disrupt?: (ended: () => boolean) => Promise<void>) => {
      const workspace = path.join(root, name);
      mkdirSync(workspace);
      const requestsBefore = scripted.requests.length;
      const started = Date.now();
      const handle = await client.workflow.start(goalWorkflow, {
        taskQueue,
        workflowId: `chaos-${name}-${Date.now()}`,
        args: [
          {
            goal: CHAOS_GOAL,
            workspace,
            // With network allowed every run_command is irreversible: each append is approved and
            // runs at most once, which is what chaos measures.
            sandbox: { network: true },
            // A short heartbeat timeout lets the server notice a killed worker in seconds.
            timing: { heartbeatTimeoutMs: 2000 },
            limits: { maxTurns: options.calls + 5, maxToolCalls: options.calls + 5 },
            ledger: { maxEvents: 10_000 },
            // The scripted model makes one call a turn and never answers a checkpoint; the
            // checkpoint guard would rightly stop it at the second. Chaos measures durability.
            guards: { checkpoints: { enabled: false } },
          },
        ],
      });
      const approver = startApprover(handle);
      let ended = false;
      const disruption = disrupt?.(() => ended);
      const status = await waitForEnd(handle, options.goalTimeoutMs);
      ended = true;
      await disruption;
      await approver.stop();
      const result = status === 'COMPLETED' ? await handle.result() : undefined;
      const ledger = await retrying(() => handle.query(ledgerQuery, {}));
      const effects = readOptional(path.join(workspace, EFFECTS_FILE));
      return {
        figures: {
          status: result?.status ?? status.toLowerCase(),
          durationMs: Date.now() - started,
          toolCalls: result?.counters.toolCalls ?? 0,
          modelRequests: scripted.requests.length - requestsBefore,
          effectLines: effects.split('\n').filter(Boolean).length,
        },
        effects,
        ledger,
        signaled: approver.signaled,
      };
    };

    log(`chaos: undisturbed run of ${options.calls} approved irreversible appends`);
    const calm = await runGoal('undisturbed');
    log(`chaos: undisturbed run ${calm.figures.status} in ${seconds(calm.figures.durationMs)}`);

    let killsDone = 0;
    let restartsDone = 0;
    const schedule = disruptionSchedule(options);
    log(
      `chaos: disturbed run: ${options.kills} kills and ${options.restarts} server restarts (seed ${options.seed})`,
    );
    const storm = await runGoal('disturbed', async (ended) => {
      for (const disruption of schedule) {
        await sleepUnless(disruption.afterMs, ended);
        if (ended()) break;
        if (disruption.kind === 'kill-worker') {
          await worker?.kill9();
          worker = await startWorker();
          killsDone += 1;
        } else {
          await server?.stop();
          server = await startServer();
          restartsDone += 1;
        }
        log(`chaos: ${killsDone} kills, ${restartsDone} restarts`);
      }
    });
    log(`chaos: disturbed run ${storm.figures.status} in ${seconds(storm.figures.durationMs)}`);
    await connection.close();
    return report({ options, calm, storm, killsDone, restartsDone });
  } finally {
    await worker?.stop();
    await server?.stop();
    await scripted.close();
    rmSync(root, { recursive: true, force: true });
  }
}

function report(input: {
  options: ChaosOptions;
  calm: { figures: RunFigures; effects: string };
  storm: { figures: RunFigures; effects: string; ledger: LedgerEvent[]; signaled: ReadonlySet<string> };
  killsDone: number;
  restartsDone: number;
}): ChaosReport {
  const { options, calm, storm } = input;
  const counted = countEffects(storm.effects, options.calls);
  const present = new Set(
    storm.effects
      .split('\n')
      .map(effectIndexIn)
      .filter((index) => index !== undefined),
  );
  const unknownOutcomes = storm.ledger
    .filter((event) => event.kind === 'tool.outcome_unknown')
    .map((event) => {
      const effect = effectIndexIn(event.summary);
      return {
        callId: String(event.data.callId),
        effect,
        began: event.data.began,
        effectPresent: effect !== undefined && present.has(effect),
      };
    });
  const decided = new Set(
    storm.ledger
      .filter((event) => event.kind === 'approval.decided')
      .map((event) => String(event.data.callId)),
  );
  const accountedFor = new Set(unknownOutcomes.map((outcome) => outcome.effect));
  const { log: _log, ...figures } = options;
  return {
    options: figures,
    undisturbed: calm.figures,
    disturbed: storm.figures,
    killsDone: input.killsDone,
    restartsDone: input.restartsDone,
    completed: storm.figures.status === 'completed',
    duplicatedEffects: counted.duplicated,
    missingEffects: counted.missing,
    unknownOutcomes,
    unexplainedMissing: counted.missing.filter((index) => !accountedFor.has(index)),
    approvalsSent: storm.signaled.size,
    lostApprovals: [...storm.signaled].filter((callId) => !decided.has(callId)),
    finalStateEqual: storm.effects === calm.effects,
  };
}

/** Polls the execution's status until it leaves RUNNING; errors (a restarting server) are waited out. */
async function waitForEnd(
  handle: { describe(): Promise<{ status: { name: string } }> },
  timeoutMs: number,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      const { status } = await handle.describe();
      if (status.name !== 'RUNNING') return status.name;
    } catch {
      // the server is restarting
    }
    await sleep(500);
  }
  return 'TIMED_OUT_WAITING';
}

async function retrying<T>(probe: () => Promise<T>, attempts = 30): Promise<T> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await probe();
    } catch (error) {
      if (attempt >= attempts) throw error;
      await sleep(1000);
    }
  }
}

async function sleepUnless(ms: number, ended: () => boolean): Promise<void> {
  const until = Date.now() + ms;
  while (!ended() && Date.now() < until) await sleep(Math.min(200, until - Date.now()));
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function readOptional(file: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

export function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
