import { messageBlocks, type MessagesRequestBody } from './request-body';
import type { ThinkingSigner } from './thinking-signature';

const EXTENDED_THINKING_DOCS = 'https://docs.claude.com/en/docs/build-with-claude/extended-thinking';

/**
 * Extended thinking's request rules
 * (platform.claude.com/docs/en/build-with-claude/extended-thinking).
 */
export function thinkingRejection(body: MessagesRequestBody, signer: ThinkingSigner): string | undefined {
  return signatureRejection(body, signer) ?? settingsRejection(body) ?? toolLoopRejection(body);
}

/** The request enables thinking with a budget ("enabled"), or lets the model choose ("adaptive"). */
export function thinkingMode(body: MessagesRequestBody): 'enabled' | 'adaptive' | undefined {
  const type = body.thinking?.type;
  return type === 'enabled' || type === 'adaptive' ? type : undefined;
}

// "Include the complete unmodified block back to the API": the signature verifies the text, and
// redacted_thinking data must be data the API issued. "You can omit thinking blocks from prior
// assistant role turns", but a block that is sent must be the one received.
function signatureRejection(body: MessagesRequestBody, signer: ThinkingSigner): string | undefined {
  for (const [index, message] of (body.messages ?? []).entries()) {
    for (const [blockIndex, block] of messageBlocks(message).entries()) {
      if (block.type === 'thinking' && !signer.verify(block.thinking, block.signature))
        return `messages.${index}.content.${blockIndex}: Invalid \`signature\` in \`thinking\` block`;
      if (block.type === 'redacted_thinking' && !signer.verifyRedacted(block.data))
        return `messages.${index}.content.${blockIndex}: Invalid \`data\` in \`redacted_thinking\` block`;
    }
  }
  return undefined;
}

function settingsRejection(body: MessagesRequestBody): string | undefined {
  const mode = thinkingMode(body);
  if (mode === undefined) return undefined;
  if (mode === 'enabled') {
    // The budget is at least 1,024 tokens and "must be set to a value less than max_tokens".
    const budget = body.thinking?.budget_tokens;
    if (typeof budget !== 'number' || !Number.isInteger(budget))
      return 'thinking.enabled.budget_tokens: Input should be a valid integer';
    if (budget < 1024) return 'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024';
    if (typeof body.max_tokens === 'number' && budget >= body.max_tokens)
      return `\`max_tokens\` must be greater than \`thinking.budget_tokens\`. Please consult our documentation at ${EXTENDED_THINKING_DOCS}#max-tokens-and-context-window-size`;
    // "Tool use with thinking only supports `tool_choice: {"type": "auto"}` (the default) or
    // `tool_choice: {"type": "none"}`".
    const choice = body.tool_choice?.type;
    if (choice === 'any' || choice === 'tool')
      return 'Thinking may not be enabled when tool_choice forces tool use.';
  }
  // "Thinking isn't compatible with `temperature` or `top_k` modifications as well as forced tool
  // use" (Feature compatibility).
  if (body.temperature !== undefined && body.temperature !== 1)
    return `\`temperature\` may only be set to 1 when thinking is enabled or in adaptive mode. Please consult our documentation at ${EXTENDED_THINKING_DOCS}#feature-compatibility`;
  if (body.top_k !== undefined) return '`top_k` must be unset when thinking is enabled or in adaptive mode';
  return undefined;
}

// "During tool use, you must pass thinking blocks back to the API for the last assistant
// message": when the request continues a tool-use loop (its last assistant message asked for
// tools and the final user message carries their results), that assistant message must begin
// with the thinking or redacted_thinking block it was answered with. Adaptive mode drops the rule.
function toolLoopRejection(body: MessagesRequestBody): string | undefined {
  if (thinkingMode(body) !== 'enabled') return undefined;
  const messages = body.messages ?? [];
  const last = messages.at(-1);
  if (last?.role !== 'user' || !messageBlocks(last).some((block) => block.type === 'tool_result'))
    return undefined;
  const index = messages.length - 2;
  const assistant = messages[index];
  if (assistant?.role !== 'assistant') return undefined;
  const blocks = messageBlocks(assistant);
  if (!blocks.some((block) => block.type === 'tool_use')) return undefined;
  const first = blocks[0]?.type;
  if (first === 'thinking' || first === 'redacted_thinking') return undefined;
  return (
    `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`${first}\`. ` +
    'When `thinking` is enabled, a final `assistant` message must start with a thinking block (preceeding the lastmost set of `tool_use` and `tool_result` blocks). ' +
    'We recommend you include thinking blocks from previous turns. To avoid this requirement, disable `thinking`. ' +
    `Please consult our documentation at ${EXTENDED_THINKING_DOCS}`
  );
}
