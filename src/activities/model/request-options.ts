import type Anthropic from '@anthropic-ai/sdk';
import type { ModelCallSettings } from '../../workflows/goal/model-turn/call-settings';
import { RESERVED_HEADERS } from '../../workflows/goal/model-turn/request-options';

/**
 * The request's tool_choice, from the goal's setting and the workflow's per-call override (the
 * closing report's `none` wins: a goal that forces tool use must still be able to write its
 * report). disable_parallel_tool_use is a field inside tool_choice, of auto, any and tool only
 * (docs.claude.com/en/docs/build-with-claude/tool-use, "Parallel tool use"), so asking for it
 * alone sends `auto` with it. Undefined without tools: a choice among no tools means nothing.
 */
export function toolChoiceOf(
  model: Pick<ModelCallSettings, 'toolChoice' | 'disableParallelToolUse'>,
  override: 'none' | undefined,
  hasTools: boolean,
): Anthropic.ToolChoice | undefined {
  if (!hasTools) return undefined;
  if (override === 'none') return { type: 'none' };
  const setting = model.toolChoice;
  const single = model.disableParallelToolUse === true ? { disable_parallel_tool_use: true } : {};
  if (setting === 'none') return { type: 'none' };
  if (typeof setting === 'object') return { type: 'tool', name: setting.name, ...single };
  if (setting === undefined && model.disableParallelToolUse !== true) return undefined;
  return { type: setting ?? 'auto', ...single };
}

/**
 * Headers for this request only (the SDK's per-request options): betas as one anthropic-beta
 * header, comma-separated as the API reads it, and the goal's extra headers. The schema refuses
 * auth and version headers already; they are dropped here too, as goal input from an older
 * worker's schema must not reach the wire as credentials.
 */
export function requestHeaders(
  model: Pick<ModelCallSettings, 'betas' | 'extraHeaders'>,
): Record<string, string> | undefined {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(model.extraHeaders ?? {})) {
    if (!RESERVED_HEADERS.includes(name.toLowerCase())) headers[name] = value;
  }
  if (model.betas !== undefined && model.betas.length > 0) headers['anthropic-beta'] = model.betas.join(',');
  return Object.keys(headers).length > 0 ? headers : undefined;
}
