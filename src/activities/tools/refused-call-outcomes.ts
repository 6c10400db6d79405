/**
 * The outcomes of calls refused before they run: an irreversible call without approval, a tool
 * this worker lacks, an input the tool's schema rejects. Each tells the model what it can do next.
 */
import type { ToolOutcome } from '../../workflows/tools/tool-outcome';
import type { RegisteredTool } from './registered-tool';
import type { ToolRegistry } from './tool-registry';
import { escalation, failure } from './tool-outcomes';

/** An irreversible call that reached the worker without a human's approval: asked for, not run. */
export function notApproved(summary: string): ToolOutcome {
  return escalation({
    content: `Not run: ${summary} is irreversible, and no human approved it.`,
    reason: 'the tool decided this call is irreversible, and it runs only once a human approves it',
  });
}

export function notOnThisWorker(toolName: string, registry: ToolRegistry): ToolOutcome {
  return failure({
    content: `The tool "${toolName}" is not registered on the worker that ran this call.`,
    candidates: [
      `Use one of the tools this worker has: ${registry.names().join(', ')}`,
      'Explain in your answer which tool is missing, so the user can deploy it',
    ],
  });
}

export function invalidInputOutcome(tool: RegisteredTool, error: string): ToolOutcome {
  const schema = tool.inputJsonSchema;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const fields = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {})
    .map((field) => (required.has(field) ? `${field} (required)` : field))
    .join(', ');
  return failure({
    content: error,
    candidates: [
      `Call ${tool.name} again with the fields named above corrected`,
      `${tool.name} accepts: ${fields}`,
    ],
  });
}
