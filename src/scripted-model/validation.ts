import { modelLimits } from '../workflows/common/model-limits';
import { cacheControlRejection } from './cache-control-rules';
import { mediaRejection } from './media-rules';
import { messageBlocks, type MessagesRequestBody } from './request-body';
import { thinkingRejection } from './thinking-rules';
import type { ThinkingSigner } from './thinking-signature';
import { requestTokens } from './token-count';
import { toolPairingRejection } from './tool-pairing-rules';

/**
 * What the Messages API refuses with 400 invalid_request_error before a model sees the request,
 * worded as the API words it. Each rule says where it comes from; rules are checked in a fixed
 * order and the first refusal is the answer, as the API answers one error at a time.
 */
export interface ValidationContext {
  signer: ThinkingSigner;
  /** The request's context window; default: the model's (model-limits.ts), else 200,000. */
  contextWindowTokens?: number;
}

export const DEFAULT_CONTEXT_WINDOW_TOKENS = 200_000;

export function validateRequest(body: MessagesRequestBody, context: ValidationContext): string | undefined {
  return (
    maxTokensRejection(body) ??
    messagesRejection(body) ??
    toolChoiceRejection(body) ??
    toolPairingRejection(body) ??
    mediaRejection(body) ??
    thinkingRejection(body, context.signer) ??
    cacheControlRejection(body) ??
    contextWindowRejection(body, context.contextWindowTokens)
  );
}

// platform.claude.com/docs/en/api/messages/create: max_tokens is required, at least 1, and no
// more than the model writes ("Different models have different maximum values for this
// parameter"; the numbers are each model's "Max output" in model-limits.ts). A model keel does
// not know gets no upper bound here, as the endpoint would decide.
function maxTokensRejection(body: MessagesRequestBody): string | undefined {
  const maxTokens = body.max_tokens;
  if (maxTokens === undefined) return 'max_tokens: Field required';
  if (typeof maxTokens !== 'number' || !Number.isInteger(maxTokens))
    return 'max_tokens: Input should be a valid integer';
  if (maxTokens < 1) return 'max_tokens: Input should be greater than or equal to 1';
  const model = body.model ?? '';
  const limit = modelLimits(model)?.maxOutputTokens;
  if (limit !== undefined && maxTokens > limit)
    return `max_tokens: ${maxTokens} > ${limit}, which is the maximum allowed number of output tokens for ${model}`;
  return undefined;
}

// platform.claude.com/docs/en/api/messages/create: messages is a non-empty list of user and
// assistant turns; every message but an optional final assistant one has content, and a text
// block is never empty. With a final assistant message "the response content will continue
// immediately from the content in that message".
function messagesRejection(body: MessagesRequestBody): string | undefined {
  const messages = body.messages;
  if (!Array.isArray(messages) || messages.length === 0) return 'messages: at least one message is required';
  for (const [index, message] of messages.entries()) {
    if (message.role !== 'user' && message.role !== 'assistant')
      return `messages.${index}.role: Input should be 'user' or 'assistant'`;
    const finalAssistant = index === messages.length - 1 && message.role === 'assistant';
    const empty = message.content === '' || (Array.isArray(message.content) && message.content.length === 0);
    if (empty && !finalAssistant)
      return `messages.${index}: all messages must have non-empty content except for the optional final assistant message`;
    if (messageBlocks(message).some((block) => block.type === 'text' && block.text === '') && !empty)
      return 'messages: text content blocks must be non-empty';
  }
  // A final assistant message is a prefill the answer continues from; the API refuses one whose
  // text ends in whitespace.
  const last = messages.at(-1);
  const lastBlock = last?.role === 'assistant' ? messageBlocks(last).at(-1) : undefined;
  if (lastBlock?.type === 'text' && typeof lastBlock.text === 'string' && /\s$/.test(lastBlock.text))
    return 'messages: final assistant content cannot end with trailing whitespace';
  return undefined;
}

// platform.claude.com/docs/en/api/messages/create: tool_choice is one of auto, any, tool (with the
// tool's name) or none ("The model will not be allowed to use tools"). disable_parallel_tool_use
// is a boolean field of auto, any and tool, not of none
// (docs.claude.com/en/docs/build-with-claude/tool-use, "Parallel tool use"); other fields are
// refused as the API refuses unknown fields. A named tool must be one of the request's tools (the
// documented rule; the API's exact wording for it is not published).
const TOOL_CHOICE_FIELDS: Record<string, string[]> = {
  auto: ['type', 'disable_parallel_tool_use'],
  any: ['type', 'disable_parallel_tool_use'],
  tool: ['type', 'name', 'disable_parallel_tool_use'],
  none: ['type'],
};
function toolChoiceRejection(body: MessagesRequestBody): string | undefined {
  const choice = body.tool_choice;
  if (choice === undefined) return undefined;
  const fields = typeof choice.type === 'string' ? TOOL_CHOICE_FIELDS[choice.type] : undefined;
  if (fields === undefined)
    return `tool_choice: Input tag '${String(choice.type)}' found using 'type' does not match any of the expected tags: ${Object.keys(
      TOOL_CHOICE_FIELDS,
    )
      .map((type) => `'${type}'`)
      .join(', ')}`;
  const extra = Object.keys(choice).find((field) => !fields.includes(field));
  if (extra !== undefined) return `tool_choice.${choice.type}.${extra}: Extra inputs are not permitted`;
  const single = (choice as Record<string, unknown>).disable_parallel_tool_use;
  if (single !== undefined && typeof single !== 'boolean')
    return `tool_choice.${choice.type}.disable_parallel_tool_use: Input should be a valid boolean`;
  if (choice.type !== 'tool') return undefined;
  if (typeof choice.name !== 'string') return 'tool_choice.tool.name: Field required';
  const named = (body.tools ?? []).some((tool) => (tool as { name?: unknown } | null)?.name === choice.name);
  return named
    ? undefined
    : `tool_choice.tool.name: the tool '${choice.name}' is not one of the request's tools`;
}

// platform.claude.com/docs/en/build-with-claude/context-windows: a request whose input does not
// fit the model's context window is refused ("prompt is too long") rather than truncated.
function contextWindowRejection(body: MessagesRequestBody, contextWindowTokens?: number): string | undefined {
  const window = contextWindowOf(body, contextWindowTokens);
  const tokens = requestTokens(body);
  return tokens > window ? `prompt is too long: ${tokens} tokens > ${window} maximum` : undefined;
}

/** The request's model's context window: the server's setting, the model's own, or the default. */
export function contextWindowOf(body: MessagesRequestBody, contextWindowTokens?: number): number {
  return (
    contextWindowTokens ?? modelLimits(body.model ?? '')?.contextWindowTokens ?? DEFAULT_CONTEXT_WINDOW_TOKENS
  );
}
