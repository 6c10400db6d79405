/**
 * What a worker process says as it starts polling: its host and claim, queues, tools, workflow
 * cache, sandbox, approval rules and stores, one "keel worker:" line each.
 */
import type { Worker } from '@temporalio/worker';
import type { HostSettings } from '../config/host-settings';
import { keelHostOf, type KeelHost } from './host-worker';
import { hostTaskQueue } from '../workflows/hosts/host-queues';
import { modelQueueLine, modelRequestsPerMinute } from './model-queue-worker';
import { describeSandbox } from '../activities/tools/sandbox/sandbox-status';
import { reflectionStoreSettings } from '../config/reflection-store-settings';
import { describeModelRequestStore } from '../activities/model/request-store/create-model-request-store';
import { workerToolsLine } from '../client/tool-lines';
import type { ConnectionSettings } from '../client/connection-settings';
import { maxCachedWorkflows } from '../config/workflow-cache';
import { goalsAtWork } from '../config/goals-at-work';
import type { KeelWorkerOptions } from './keel-worker-options';
import { keelToolsOf } from './worker-tools';

export function logWorkerStart(
  worker: Worker,
  options: Pick<
    KeelWorkerOptions,
    'connection' | 'modelRequestsPerMinute' | 'maxCachedWorkflows' | 'goalsAtWork'
  >,
  started: {
    settings: ConnectionSettings;
    host: HostSettings;
    approvalRules: readonly unknown[] | undefined;
    log: (line: string) => void;
  },
): void {
  const { settings, host, approvalRules, log } = started;
  const roots = host.workspaceRoots.length > 0 ? host.workspaceRoots.join(', ') : 'any path';
  log(
    `keel worker: host ${host.hostId} — polling "${hostTaskQueue(settings.taskQueue, host.hostId)}" for workspace tools (workspace roots: ${roots})`,
  );
  log(`keel worker: ${describeClaim(keelHostOf(worker))}`);
  log(
    `keel worker: ${modelQueueLine(settings.taskQueue, modelRequestsPerMinute(options.modelRequestsPerMinute))}`,
  );
  log(`keel worker: ${workerToolsLine(keelToolsOf(worker) ?? [])}`);
  log(
    `keel worker: keeps up to ${maxCachedWorkflows(options.maxCachedWorkflows, process.env)} goals in memory (KEEL_MAX_CACHED_WORKFLOWS); others are rebuilt from their history when their next decision arrives`,
  );
  const places = goalsAtWork(options.goalsAtWork, process.env);
  log(
    places === undefined
      ? 'keel worker: no bound on goals at work (KEEL_GOALS_AT_WORK unset): goals started together take turns'
      : `keel worker: up to ${places} goals at work at once (KEEL_GOALS_AT_WORK); others wait for a place, first come, first served`,
  );
  log(describeSandbox());
  if (approvalRules !== undefined)
    log(
      `keel worker: ${approvalRules.length} approval rules for every goal it starts (docs/approvals-and-security.md, Approval rules)`,
    );
  log(`keel worker: model requests kept in ${describeModelRequestStore(process.env)}`);
  log(
    `keel worker: reflections in ${reflectionStoreSettings({ cwd: process.cwd(), env: process.env }).description}`,
  );
  const server = options.connection === undefined ? settings.address : 'the given connection';
  log(
    `keel worker: polling task queue "${settings.taskQueue}" on ${server} (namespace ${settings.namespace})`,
  );
}

/** Which process of the host this is, on which disk, and whose replica (docs/several-machines.md, Host identity). */
function describeClaim(host: KeelHost | undefined): string {
  if (host === undefined) return 'host claim unknown';
  const disk = host.diskId === undefined ? 'no workspace root, so no disk marker' : `disk ${host.diskId}`;
  const replica =
    host.replicaOf.length === 0
      ? ''
      : `, replica beside instance ${host.replicaOf.join(', ')} on the same disk`;
  return `host ${host.hostId} claimed by instance ${host.instanceId} (${disk}${replica})`;
}
