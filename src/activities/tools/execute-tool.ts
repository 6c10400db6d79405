import { stat, realpath } from 'node:fs/promises';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { Reversibility } from '../../workflows/reversibility';
import { suggestCall } from '../../workflows/tools/suggest-call';
import type { ToolOutcome } from '../../workflows/tools/tool-outcome';
import {
  TOOL_NAMES,
  classifyToolCall,
  isToolName,
  toolDefinitionsForModel,
  type toolSpecs,
  type ToolName,
} from '../../workflows/tools/tool-registry';
import type { ToolSpec } from '../../workflows/tools/tool-spec';
import { activityContextOrUndefined, heartbeatIntervalMs } from '../activity-context';
import { editFile } from './edit-file';
import { createIrreversibleJournal, describeEarlierAttempt } from './irreversible-journal';
import { listDir } from './list-dir';
import { readFile } from './read-file';
import { runCommand } from './run-command';
import { search } from './search';
import type { ToolContext, ToolImplementation } from './tool-context';
import { failure, isSystemError, systemErrorOutcome } from './tool-outcomes';
import { writeFile } from './write-file';

/** Failure types execute-tool throws; everything else comes back as a ToolOutcome. */
export const ToolActivityFailureType = {
  /** The goal's workspace directory is gone: no tool can run, retrying will not help. */
  WorkspaceMissing: 'WorkspaceMissing',
  /** The activity input itself is malformed: a bug in the caller, not something to retry. */
  InvalidToolActivityInput: 'InvalidToolActivityInput',
} as const;
export type ToolActivityFailureType = (typeof ToolActivityFailureType)[keyof typeof ToolActivityFailureType];

export const executeToolInputSchema = z.object({
  toolName: z.string().min(1),
  /** The model's raw input; validated here against the tool's schema. */
  input: z.unknown(),
  workspace: z.string().min(1),
  callId: z.string().min(1),
  /** Stable across retries of this call (workflow id + call id). */
  idempotencyKey: z.string().min(1),
  /** As decided by the workflow; irreversible calls run at most once. */
  reversibility: z.enum([Reversibility.ReadOnly, Reversibility.Mutating, Reversibility.Irreversible]),
  /** The goal's sandbox settings; absent in inputs scheduled before they existed. */
  sandbox: z.object({ network: z.boolean() }).default({ network: false }),
});
export type ExecuteToolInput = z.input<typeof executeToolInputSchema>;

/** Pairs each spec with its implementation; the mapped type keeps their input types in step. */
const implementations: { readonly [Name in ToolName]: ToolImplementation<InputOf<Name>> } = {
  read_file: readFile,
  list_dir: listDir,
  search,
  write_file: writeFile,
  edit_file: editFile,
  run_command: runCommand,
};
type InputOf<Name extends ToolName> = (typeof toolSpecs)[Name] extends ToolSpec<infer Input> ? Input : never;

export function createToolActivities(options: { journalDirectory: string; now?: () => Date }) {
  const journal = createIrreversibleJournal({ directory: options.journalDirectory, now: options.now });

  async function executeTool(rawInput: ExecuteToolInput): Promise<ToolOutcome> {
    const parsed = executeToolInputSchema.safeParse(rawInput);
    if (!parsed.success) {
      throw ApplicationFailure.nonRetryable(
        `Invalid executeTool input: ${z.prettifyError(parsed.error)}`,
        ToolActivityFailureType.InvalidToolActivityInput,
      );
    }
    const call = parsed.data;
    const workspace = await existingWorkspace(call.workspace);

    if (!isToolName(call.toolName)) {
      return failure({
        content: `Unknown tool "${call.toolName}".`,
        candidates: [
          `Call one of the available tools: ${TOOL_NAMES.join(', ')}`,
          suggestCall('list_dir', { path: '.' }),
        ],
      });
    }
    const classified = classifyToolCall(call.toolName, call.input, { network: call.sandbox.network });
    if (!classified.ok) return invalidToolInputOutcome(call.toolName, classified.error);

    // Either side saying irreversible is enough: the journal costs little, a repeat could cost a lot.
    const irreversible =
      call.reversibility === Reversibility.Irreversible ||
      classified.reversibility === Reversibility.Irreversible;
    const activity = activityContextOrUndefined();
    const context: ToolContext = {
      network: call.sandbox.network,
      reversibility: irreversible ? Reversibility.Irreversible : call.reversibility,
      workspace,
      idempotencyKey: call.idempotencyKey,
      signal: activity?.cancellationSignal ?? new AbortController().signal,
      heartbeat: activity === undefined ? () => {} : () => activity.heartbeat(),
      // Fast enough for the goal's own heartbeat timeout, so a live command is never taken for dead.
      ...(activity === undefined ? {} : { heartbeatIntervalMilliseconds: heartbeatIntervalMs(activity) }),
    };
    const run = (): Promise<ToolOutcome> => runTool(call.toolName as ToolName, classified.input, context);
    const outcome = irreversible ? await runAtMostOnce(call, classified.summary, run) : await run();

    // A cancelled activity must end as cancelled for Temporal, whatever the tool returned.
    if (activity !== undefined && context.signal.aborted) throw context.signal.reason;
    return outcome;
  }

  async function runAtMostOnce(
    call: z.output<typeof executeToolInputSchema>,
    summary: string,
    run: () => Promise<ToolOutcome>,
  ): Promise<ToolOutcome> {
    const claim = await journal.claim({
      idempotencyKey: call.idempotencyKey,
      toolName: call.toolName,
      summary,
    });
    if (!claim.claimed) {
      return failure({
        content: `${summary} was not run again: it is irreversible and was already attempted. ${describeEarlierAttempt(claim.earlier)}`,
        candidates: [
          `${suggestCall('list_dir', { path: '.' })} — inspect the workspace to see whether it took effect`,
          'Check its effect with a read-only command (e.g. git status, or reading the files it writes)',
          'Ask the user whether it took effect before trying anything that would repeat it',
        ],
      });
    }
    try {
      const outcome = await run();
      await journal.recordFinish(claim.markerPath, {
        ok: outcome.ok,
        ...(outcome.facts.exitCode === undefined ? {} : { exitCode: outcome.facts.exitCode }),
      });
      return outcome;
    } catch (error) {
      await journal.recordFinish(claim.markerPath, {
        error: error instanceof Error ? error.message : String(error),
      });
      throw error;
    }
  }

  return { executeTool };
}

async function runTool(name: ToolName, input: unknown, context: ToolContext): Promise<ToolOutcome> {
  // input was validated against toolSpecs[name] by classifyToolCall.
  const implementation = implementations[name] as ToolImplementation<unknown>;
  try {
    return await implementation(input, context);
  } catch (error) {
    // File-system errors (EACCES, ENOTDIR, …) are about this call; the model can act on them.
    if (!isSystemError(error)) throw error;
    const target = (input as { path?: unknown }).path;
    return systemErrorOutcome({ toolName: name, relative: typeof target === 'string' ? target : '.', error });
  }
}

async function existingWorkspace(workspace: string): Promise<string> {
  try {
    if ((await stat(workspace)).isDirectory()) return await realpath(workspace);
  } catch {
    // reported below
  }
  throw ApplicationFailure.nonRetryable(
    `The workspace directory ${workspace} does not exist (or is not a directory); no tool can run.`,
    ToolActivityFailureType.WorkspaceMissing,
  );
}

function invalidToolInputOutcome(toolName: ToolName, error: string): ToolOutcome {
  const schema = toolDefinitionsForModel([toolName])[0]?.input_schema;
  const required = new Set((schema?.required as string[] | undefined) ?? []);
  const fields = Object.keys((schema?.properties as Record<string, unknown> | undefined) ?? {})
    .map((field) => (required.has(field) ? `${field} (required)` : field))
    .join(', ');
  return failure({
    content: error,
    candidates: [
      `Call ${toolName} again with the fields named above corrected`,
      `${toolName} accepts: ${fields}`,
    ],
  });
}
