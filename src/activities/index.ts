import type Anthropic from '@anthropic-ai/sdk';
import type { LedgerSink } from './ledger-sinks';
import { createLedgerSinkActivities } from './ledger-sinks';
import { createModelActivities } from './model/model-activity';
import { createReflectionActivities } from './reflection/reflection-activities';
import type { ReflectionStore } from './reflection-store/reflection-store';
import { createBackupActivities } from './rollback/workspace-backups';
import { createToolActivities } from './tools/tool-activities';
import type { ToolRegistry } from './tools/tool-registry';
import type { Budget } from '../workflows/principles/budget';
import { createWorkerDefaultsActivities } from './worker-defaults';

export interface ActivityDependencies {
  /** The Anthropic client, built by the worker from its environment. */
  anthropic: Anthropic;
  /** Every tool this worker runs: the built-ins, the user's own and MCP servers' tools. */
  toolRegistry: ToolRegistry;
  /** Where the at-most-once journal of irreversible calls is kept. */
  journalDirectory: string;
  /** Where workspace backups for rollbackOnBacktrack are kept. */
  backupDirectory: string;
  reflectionStore: ReflectionStore;
  ledgerSinks: readonly LedgerSink[];
  reflectionCadence?: number;
  /** The default budget of goals this worker starts (KEEL_BUDGET_*). */
  budget?: Budget;
}

/** Every activity keel registers, with its dependencies injected. */
export function createActivities(dependencies: ActivityDependencies) {
  return {
    ...createModelActivities({ client: dependencies.anthropic }),
    ...createToolActivities({
      registry: dependencies.toolRegistry,
      journalDirectory: dependencies.journalDirectory,
    }),
    ...createReflectionActivities({ store: dependencies.reflectionStore }),
    ...createLedgerSinkActivities({ sinks: dependencies.ledgerSinks }),
    ...createBackupActivities({ backupDirectory: dependencies.backupDirectory }),
    ...createWorkerDefaultsActivities({
      ...(dependencies.reflectionCadence !== undefined
        ? { reflectionCadence: dependencies.reflectionCadence }
        : {}),
      ledgerSinks: dependencies.ledgerSinks.length > 0,
      ...(dependencies.budget !== undefined ? { budget: dependencies.budget } : {}),
    }),
  };
}

export type KeelActivities = ReturnType<typeof createActivities>;
