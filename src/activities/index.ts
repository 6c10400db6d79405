import type Anthropic from '@anthropic-ai/sdk';
import { createModelActivities } from './model/model-activity';
import { createToolActivities } from './tools/execute-tool';

export interface ActivityDependencies {
  /** The Anthropic client, built by the worker from its environment. */
  anthropic: Anthropic;
  /** Where the at-most-once journal of irreversible calls is kept. */
  journalDirectory: string;
}

/** Every activity keel registers, with its dependencies injected. */
export function createActivities(dependencies: ActivityDependencies) {
  return {
    ...createModelActivities({ client: dependencies.anthropic }),
    ...createToolActivities({ journalDirectory: dependencies.journalDirectory }),
  };
}

export type KeelActivities = ReturnType<typeof createActivities>;
