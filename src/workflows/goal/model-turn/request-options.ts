import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { FailureType } from '../../common/failure-types';

/**
 * The Messages API options a goal may set beyond the model's name and sizes (issue 42): which
 * tools the model must or may call, whether it may call several at once, beta features, and
 * headers for a gateway in front of the API. Validated with the goal's input, so a combination
 * the API would refuse on every turn fails the goal at its start instead (InvalidGoalInput).
 */

/**
 * tool_choice as the API takes it (docs.claude.com/en/docs/build-with-claude/tool-use, "Forcing
 * tool use"): `auto` lets the model decide, `any` makes it call one of the tools, a named tool
 * makes it call that one, `none` forbids tools. auto/any/none as words, a named tool as
 * `{ type: 'tool', name }`.
 */
export const toolChoiceSettingSchema = z.union([
  z.enum(['auto', 'any', 'none']),
  z.object({ type: z.literal('tool'), name: z.string().min(1) }).strict(),
]);
export type ToolChoiceSetting = z.output<typeof toolChoiceSettingSchema>;

/** A beta's name as the API spells them ("interleaved-thinking-2025-05-14"); no commas. */
export const betasSchema = z.array(
  z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, 'a beta name is letters, digits, ".", "_" and "-"'),
);

/**
 * Headers the worker's client sets itself: the key stays in the worker's environment (goal
 * input is stored in history, readable by anyone who can read the goal), and the API version is
 * the SDK's. anthropic-beta is set from `betas`, so the two cannot disagree.
 */
export const RESERVED_HEADERS = ['x-api-key', 'authorization', 'anthropic-version', 'anthropic-beta'];

export const extraHeadersSchema = z
  .record(
    z.string().regex(/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/, 'a header name is an HTTP token'),
    z.string().regex(/^[^\r\n]*$/, 'a header value is one line'),
  )
  .superRefine((headers, context) => {
    for (const name of Object.keys(headers)) {
      const lower = name.toLowerCase();
      if (!RESERVED_HEADERS.includes(lower)) continue;
      context.addIssue({
        code: 'custom',
        path: [name],
        message:
          lower === 'anthropic-beta'
            ? 'set beta features with model.betas, not as a header'
            : `keel does not send ${lower} from goal input: the worker's client sets it (keys stay in the worker's environment)`,
      });
    }
  });

interface ModelOptions {
  thinking?: unknown;
  toolChoice?: ToolChoiceSetting | undefined;
  disableParallelToolUse?: boolean | undefined;
}

/**
 * The combinations the API refuses on every request, as one line each (or undefined):
 * "Tool use with thinking only supports tool_choice: {"type": "auto"} (the default) or
 * tool_choice: {"type": "none"}" (docs.claude.com/en/docs/build-with-claude/extended-thinking,
 * "Extended thinking with tool use"); and disable_parallel_tool_use is a field of the auto, any
 * and tool choices only (docs.claude.com/en/docs/build-with-claude/tool-use, "Parallel tool use").
 */
export function modelOptionsProblem(model: ModelOptions): { path: string[]; message: string } | undefined {
  const forced = forcedToolChoice(model.toolChoice);
  if (model.thinking !== undefined && forced !== undefined) {
    return {
      path: ['toolChoice'],
      message: `${forced} forces tool use, which extended thinking does not allow (only auto or none): drop model.thinking or the tool choice`,
    };
  }
  if (model.disableParallelToolUse === true && model.toolChoice === 'none') {
    return {
      path: ['disableParallelToolUse'],
      message: 'toolChoice none allows no tool calls, so there are none to keep from running in parallel',
    };
  }
  return undefined;
}

/**
 * A named tool choice must name a tool the goal offers the model: checked once the goal's tools
 * are known (the goal's `tools` may be globs, or absent for every tool the worker has).
 */
export function namedToolProblem(
  toolChoice: ToolChoiceSetting | undefined,
  offered: readonly { name: string }[],
): string | undefined {
  const names = offered.map((tool) => tool.name);
  if (typeof toolChoice !== 'object' || names.includes(toolChoice.name)) return undefined;
  const list = names.length === 0 ? 'it has none' : names.join(', ');
  return `invalid goal input: model.toolChoice: names the tool "${toolChoice.name}", which is not one of this goal's tools (${list})`;
}

/** namedToolProblem as the goal's failure: typed InvalidGoalInput, never retried. */
export function assertNamedToolOffered(
  toolChoice: ToolChoiceSetting | undefined,
  offered: readonly { name: string }[],
): void {
  const problem = namedToolProblem(toolChoice, offered);
  if (problem) throw ApplicationFailure.nonRetryable(problem, FailureType.InvalidGoalInput);
}

function forcedToolChoice(choice: ToolChoiceSetting | undefined): string | undefined {
  if (choice === 'any') return 'toolChoice any';
  if (typeof choice === 'object') return `toolChoice tool:${choice.name}`;
  return undefined;
}
