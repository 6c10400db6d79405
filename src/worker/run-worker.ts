/**
 * runWorker: a worker process (`keel worker`, bin/keel-worker.js) from flags and the environment,
 * with a real or scripted model, running until SIGINT/SIGTERM.
 */
import type Anthropic from '@anthropic-ai/sdk';
import path from 'node:path';
import { hostSettings } from '../config/host-settings';
import { approvalPolicyFromEnv, readApprovalPolicyFile } from '../activities/approval-policy-file';
import { connectionSettings, type ConnectionSettings } from '../client/connection-settings';
import type { ScriptedMessagesServer } from '../scripted-model/scripted-messages-server';
import { WorkerOptionsError } from './connection';
import type { KeelWorkerOptions } from './keel-worker-options';
import { createKeelWorker } from './keel-worker';
import { anthropicFromEnvironment, startScriptedModel } from './model-client';
import { logWorkerStart } from './start-log';

/**
 * Everything createKeelWorker takes (tools, builtinTools, mcpServers, stores, connection options,
 * ...), plus what only a worker process needs. The connection options win over `settings`.
 */
export interface RunWorkerOptions extends KeelWorkerOptions {
  /** `keel worker`'s --address, --namespace and --task-queue. */
  settings?: Partial<ConnectionSettings>;
  /** Replay this scenario from a loopback Messages endpoint instead of calling a real model. */
  scriptedScenarioFile?: string;
  /** The team's approval rules file (`keel worker --approval-rules`); KEEL_APPROVAL_RULES otherwise. */
  approvalRulesFile?: string;
  log?: (line: string) => void;
}

/** Runs a worker until SIGINT/SIGTERM. */
export async function runWorker(options: RunWorkerOptions = {}): Promise<void> {
  const { settings: flags, scriptedScenarioFile, approvalRulesFile, log: given, ...workerOptions } = options;
  const log = given ?? ((line: string) => console.log(line));
  for (const [one, other] of [
    ['anthropic', 'scriptedScenarioFile'],
    ['approvalRules', 'approvalRulesFile'],
  ] as const)
    if (options[one] !== undefined && options[other] !== undefined)
      throw new WorkerOptionsError(`runWorker: give either ${one} or ${other}, not both`);
  const settings = connectionSettings({
    ...flags,
    ...definedOf({ address: options.address, namespace: options.namespace, taskQueue: options.taskQueue }),
  });
  const host = hostSettings(options); // before connecting: a bad setting is one line, at once
  const approvalRules =
    options.approvalRules ??
    (approvalRulesFile === undefined
      ? approvalPolicyFromEnv(process.env)
      : readApprovalPolicyFile(approvalRulesFile));
  let scripted: ScriptedMessagesServer | undefined;
  let anthropic: Anthropic;
  if (scriptedScenarioFile) {
    const model = await startScriptedModel(scriptedScenarioFile, log);
    scripted = model.server;
    anthropic = model.anthropic;
  } else {
    anthropic = options.anthropic ?? anthropicFromEnvironment();
    log(`keel worker: model endpoint ${anthropic.baseURL}`);
  }
  try {
    // A connection keel makes here closes when the worker stops; one given stays the caller's.
    const worker = await createKeelWorker({
      ...workerOptions,
      ...(options.connection === undefined ? { address: settings.address } : {}),
      namespace: settings.namespace,
      taskQueue: settings.taskQueue,
      anthropic,
      ...host,
      ...(approvalRules === undefined ? {} : { approvalRules }),
      // A bundle built ahead (bundleWorkflowCode) spares every start the seconds of bundling.
      // Absolute: the SDK re-encodes the bundle's inline source map for a path that is not.
      ...(options.workflowBundle === undefined && process.env.KEEL_WORKFLOW_BUNDLE
        ? { workflowBundle: { codePath: path.resolve(process.env.KEEL_WORKFLOW_BUNDLE) } }
        : {}),
    });
    logWorkerStart(worker, options, { settings, host, approvalRules, log });
    await worker.run(); // the worker's own shutdown hooks stop it on SIGINT/SIGTERM
  } finally {
    await scripted?.close();
  }
}

/** The entries that are set (so they do not overwrite a flag with undefined). */
function definedOf<T extends Record<string, unknown>>(values: T): Partial<T> {
  return Object.fromEntries(Object.entries(values).filter(([, value]) => value !== undefined)) as Partial<T>;
}
