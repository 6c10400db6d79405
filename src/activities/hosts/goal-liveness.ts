import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import type { Client } from '@temporalio/client';
import { KEEL_HOST_SEARCH_ATTRIBUTE } from '../../dev-server/search-attributes';
import type { GoalLiveness } from './workspace-claims';

const KEEL_HOST = defineSearchAttributeKey(KEEL_HOST_SEARCH_ATTRIBUTE, SearchAttributeType.KEYWORD);

/**
 * A goal holds its workspace claim on `hostId` while its workflow runs (its latest run: a goal
 * continued as new keeps its claim) and is bound to this host, or not yet bound to any (it claims
 * while it binds, before KeelHost is written). A goal not found, closed in any way — terminated
 * included, which runs no cleanup — or moved to another host holds nothing here.
 */
export function goalLivenessOn(client: Pick<Client, 'workflow'>, hostId: string): GoalLiveness {
  return async (workflowId) => {
    let description;
    try {
      description = await client.workflow.getHandle(workflowId).describe();
    } catch (error) {
      if (error instanceof Error && error.name === 'WorkflowNotFoundError') return false;
      throw error; // the server is unreachable: asked again, never taken for "ended"
    }
    if (description.status.name !== 'RUNNING') return false;
    const bound = description.typedSearchAttributes.get(KEEL_HOST);
    return bound === undefined || bound === hostId;
  };
}
