/**
 * What prompt caching saves a long goal (issue 21's targets): one keel goal of `turns` model turns
 * — tool turns reading, listing and searching a small project, then a final answer — run twice on
 * the bench's dev server against keel's strict scripted Messages server, which bills the prompt
 * cache as the API does. Once with caching on (the default), once with `model.cache.enabled:
 * false`. Deterministic: the scripted server counts tokens from the request text, not by clock.
 *
 * - read share: cache reads over input tokens of every kind, caching on;
 * - input cost ratio: the input side of the bill with caching on over the same with it off, at the
 *   goal model's list prices (uncached × input + writes × cacheWrite + reads × cacheRead).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import Anthropic from '@anthropic-ai/sdk';
import { NativeConnection } from '@temporalio/worker';
import { createFileModelRequestStore } from '../../src/activities/model/request-store/file-model-request-store';
import { createMemoryReflectionStore } from '../../src/activities/reflection-store/memory-reflection-store';
import { goalHandle, goalResult, startGoal } from '../../src/client/goal-client';
import { startScriptedMessagesServer } from '../../src/scripted-model/scripted-messages-server';
import type { ScenarioInput } from '../../src/scripted-model/scenario';
import { createKeelWorker } from '../../src/worker';
import {
  DEFAULT_PRICE_TABLE,
  cacheHitRate,
  findModelPrice,
  inputTokensOfAllKinds,
  type TokenUsage,
} from '../../src/workflows/principles/cost';
import { DEFAULT_MODEL } from '../../src/workflows/goal/lifecycle/input';
import { GoalStatus } from '../../src/workflows/goal/lifecycle/state';
import type { BenchEnvironment } from './bench-environment';

/** The issue's targets: at least this share read from the cache, at most this cost ratio. */
export const CACHE_TARGETS = { readShare: 0.85, inputCostRatio: 0.25 } as const;

export interface CacheRun {
  cache: 'on' | 'off';
  workflowId: string;
  status: string;
  modelTurns: number;
  toolCalls: number;
  /** The goal's own usage (its result), summed over every model call it made. */
  usage: TokenUsage;
  /** Requests the scripted server answered, and the input usage it reported for them in all. */
  requests: number;
  billed: { inputTokens: number; cacheCreationInputTokens: number; cacheReadInputTokens: number };
  /** Input side of the bill in USD at the model's list prices. */
  inputUsd: number;
  wallMs: number;
}

export interface CacheFiguresResult {
  turns: number;
  model: string;
  on: CacheRun;
  off: CacheRun;
  /** cacheRead / (input + cacheWrite + cacheRead), caching on. */
  readShare: number;
  /** Input cost with caching on / input cost with caching off. */
  inputCostRatio: number;
  targets: typeof CACHE_TARGETS;
  readShareMet: boolean;
  inputCostRatioMet: boolean;
}

const MARKER = 'BENCH-CACHE-FIGURES';

export async function measureCacheFigures(options: {
  environment: BenchEnvironment;
  /** Model turns of the goal: turns − 1 tool turns, then the answer. */
  turns: number;
  log: (line: string) => void;
}): Promise<CacheFiguresResult> {
  const { environment, turns, log } = options;
  if (turns < 2) throw new Error('the cache figures need at least 2 turns (a tool turn and the answer)');
  const model = DEFAULT_MODEL;
  const price = findModelPrice(model, DEFAULT_PRICE_TABLE)?.price;
  if (price === undefined) throw new Error(`no list price for ${model}`);
  const inputUsd = (usage: TokenUsage) =>
    (usage.inputTokens * price.input +
      usage.cacheCreationInputTokens * price.cacheWrite +
      usage.cacheReadInputTokens * price.cacheRead) /
    1_000_000;

  const run = async (cache: 'on' | 'off'): Promise<CacheRun> => {
    log(`bench: cache figures, a ${turns}-turn keel goal with caching ${cache}`);
    const measured = await runGoal({ environment, turns, cache });
    if (measured.status !== GoalStatus.Completed || measured.modelTurns !== turns)
      throw new Error(
        `the ${turns}-turn goal with caching ${cache} ended ${measured.status} after ${measured.modelTurns} turns: ${measured.reason ?? ''}`,
      );
    const { reason: _reason, ...rest } = measured;
    return { ...rest, inputUsd: inputUsd(measured.usage) };
  };
  // Each run has a scripted server (and so a prompt cache) of its own: neither sees the other's.
  const on = await run('on');
  const off = await run('off');
  if (inputTokensOfAllKinds(off.usage) === 0) throw new Error('the goal with caching off reported no input');
  if (off.usage.cacheReadInputTokens + off.usage.cacheCreationInputTokens > 0)
    throw new Error('the goal with caching off still read or wrote the cache');
  const readShare = cacheHitRate(on.usage);
  const inputCostRatio = on.inputUsd / off.inputUsd;
  return {
    turns,
    model,
    on,
    off,
    readShare,
    inputCostRatio,
    targets: CACHE_TARGETS,
    readShareMet: readShare >= CACHE_TARGETS.readShare,
    inputCostRatioMet: inputCostRatio <= CACHE_TARGETS.inputCostRatio,
  };
}

async function runGoal(options: {
  environment: BenchEnvironment;
  turns: number;
  cache: 'on' | 'off';
}): Promise<Omit<CacheRun, 'inputUsd'> & { reason?: string }> {
  const { environment, turns, cache } = options;
  const workspace = environment.directory(`cache-${cache}-workspace`);
  writeProject(workspace);
  const scripted = await startScriptedMessagesServer({ scenarios: [surveyScenario(turns)] });
  const connection = await NativeConnection.connect({ address: environment.server.address });
  const taskQueue = `bench-cache-${cache}-${process.pid}-${Date.now()}`;
  const stores = environment.directory(`cache-${cache}-stores`);
  try {
    const worker = await createKeelWorker({
      connection,
      namespace: 'default',
      taskQueue,
      anthropic: new Anthropic({ apiKey: 'scripted-needs-no-key', baseURL: scripted.url, maxRetries: 0 }),
      mcpServers: false,
      journalDirectory: stores,
      backupDirectory: stores,
      modelRequestStore: createFileModelRequestStore({ directory: path.join(stores, 'model-requests') }),
      reflectionStore: createMemoryReflectionStore({ warn: () => undefined }),
      ledgerSinks: [],
      workflowBundle: environment.keelBundle,
    });
    const workflowId = `bench-cache-${cache}-${turns}-${Date.now()}`;
    return await worker.runUntil(async () => {
      const started = performance.now();
      await startGoal(environment.client, {
        taskQueue,
        workflowId,
        input: {
          goal: `${MARKER}: survey this project's modules and summarise what each one does.`,
          workspace,
          limits: { maxTurns: turns + 10, maxToolCalls: turns + 10 },
          // A scripted survey reads without making progress and never answers a checkpoint: the
          // guards would stop it (as in the comparison, they are measured by eval:discipline).
          guards: { enabled: false },
          ...(cache === 'off' ? { model: { cache: { enabled: false } } } : {}),
        },
      });
      const result = await goalResult(goalHandle(environment.client, workflowId));
      const billed = { inputTokens: 0, cacheCreationInputTokens: 0, cacheReadInputTokens: 0 };
      for (const { usage } of scripted.requests) {
        billed.inputTokens += usage?.inputTokens ?? 0;
        billed.cacheCreationInputTokens += usage?.cacheCreationInputTokens ?? 0;
        billed.cacheReadInputTokens += usage?.cacheReadInputTokens ?? 0;
      }
      return {
        cache,
        workflowId,
        status: result.status,
        ...(result.reason === undefined ? {} : { reason: result.reason }),
        modelTurns: result.counters.modelTurns,
        toolCalls: result.counters.toolCalls,
        usage: result.usage,
        requests: scripted.requests.length,
        billed,
        wallMs: performance.now() - started,
      };
    });
  } finally {
    await connection.close();
    await scripted.close();
  }
}

/** A small TypeScript project: modules of a few KB each, a README and a docs folder. */
export const PROJECT_MODULES = ['orders', 'invoices', 'customers', 'payments', 'shipping', 'stock'];
const FILES_PER_MODULE = 3;

function moduleFile(module: string, index: number): string {
  const type = `${module[0]!.toUpperCase()}${module.slice(1, -1)}${index}`;
  const lines = [
    `/** ${type}: records of the ${module} module, version ${index}. */`,
    `import { Money, type Clock } from '../shared/money';`,
    '',
    `export interface ${type} {`,
    ...Array.from({ length: 12 }, (_, field) => `  field${field}: ${field % 3 === 0 ? 'string' : 'number'};`),
    '}',
    '',
  ];
  for (let fn = 0; fn < 8; fn++) {
    lines.push(
      `/** Computes step ${fn} of a ${module} record: validates, rounds and logs the change. */`,
      `export function ${module}Step${index}x${fn}(record: ${type}, clock: Clock): Money {`,
      `  if (record.field${fn} === undefined) throw new Error('${module} record ${index} lacks field${fn}');`,
      `  const amount = Money.of(Number(record.field${(fn + 1) % 12}) * ${fn + 1}, 'EUR');`,
      `  clock.note('${module}.${fn}', amount.toString());`,
      `  return amount.round(2);`,
      '}',
      '',
    );
  }
  return `${lines.join('\n')}\n`;
}

function writeProject(workspace: string): void {
  writeFileSync(
    path.join(workspace, 'README.md'),
    `# Ledger service\n\nModules: ${PROJECT_MODULES.join(', ')}. Each keeps its records in src/<module>.\n`,
  );
  for (const module of PROJECT_MODULES) {
    mkdirSync(path.join(workspace, 'src', module), { recursive: true });
    for (let index = 0; index < FILES_PER_MODULE; index++)
      writeFileSync(path.join(workspace, 'src', module, `${module}-${index}.ts`), moduleFile(module, index));
  }
  mkdirSync(path.join(workspace, 'docs'), { recursive: true });
  for (const module of PROJECT_MODULES)
    writeFileSync(
      path.join(workspace, 'docs', `${module}.md`),
      `# ${module}\n\n${`The ${module} module validates, rounds and records changes. `.repeat(20)}\n`,
    );
}

/**
 * turns − 1 tool turns over the project (reads mostly; a listing or a search every few turns, as
 * a model surveying code does), then the final answer. One call a turn, results of a few KB.
 */
export function surveyScenario(turns: number): ScenarioInput {
  const files = PROJECT_MODULES.flatMap((module) =>
    Array.from({ length: FILES_PER_MODULE }, (_, index) => `src/${module}/${module}-${index}.ts`),
  );
  const toolTurns = Array.from({ length: turns - 1 }, (_, turn) => {
    const module = PROJECT_MODULES[turn % PROJECT_MODULES.length]!;
    if (turn % 7 === 3) return { toolCalls: [{ name: 'list_dir', input: { path: `src/${module}` } }] };
    if (turn % 7 === 6)
      return { toolCalls: [{ name: 'search', input: { pattern: `${module}Step\\d`, path: 'src' } }] };
    return { toolCalls: [{ name: 'read_file', input: { path: files[turn % files.length]! } }] };
  });
  return {
    name: 'bench-cache-figures',
    match: MARKER,
    turns: [
      ...toolTurns,
      { text: `Surveyed ${PROJECT_MODULES.length} modules: each validates, rounds and records changes.` },
    ],
  };
}
