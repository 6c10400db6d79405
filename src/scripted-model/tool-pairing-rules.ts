import { messageBlocks, type MessagesRequestBody } from './request-body';

/**
 * How tool_use and tool_result blocks pair up, as the API enforces it
 * (platform.claude.com/docs/en/agents-and-tools/tool-use/handle-tool-calls: "Tool result blocks
 * must immediately follow their corresponding tool use blocks in the message history" and "In the
 * user message containing tool results, the tool_result blocks must come FIRST in the content
 * array"; a tool_use id used twice is refused with "`tool_use` ids must be unique").
 */
export function toolPairingRejection(body: MessagesRequestBody): string | undefined {
  const messages = body.messages ?? [];
  const seen = new Set<string>();
  for (const [index, message] of messages.entries()) {
    const blocks = messageBlocks(message);
    // Unique ids across the whole request.
    for (const [blockIndex, block] of blocks.entries()) {
      if (block.type !== 'tool_use' || typeof block.id !== 'string') continue;
      if (seen.has(block.id))
        return `messages.${index}.content.${blockIndex}: \`tool_use\` ids must be unique`;
      seen.add(block.id);
    }
    // Every tool_result answers a tool_use of the message right before it.
    const asked = message.role === 'user' ? toolUseIds(messages[index - 1]) : new Set<string>();
    let otherContent = false;
    for (const [blockIndex, block] of blocks.entries()) {
      if (block.type !== 'tool_result') {
        otherContent = true;
        continue;
      }
      const id = String(block.tool_use_id);
      if (!asked.has(id))
        return (
          `messages.${index}.content.${blockIndex}: unexpected \`tool_use_id\` found in \`tool_result\` blocks: ${id}. ` +
          'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.'
        );
      // The documented rule; the API's exact wording for it is not published.
      if (otherContent)
        return `messages.${index}.content.${blockIndex}: \`tool_result\` blocks must come first in the content of a user message, before any other block`;
    }
    // Every tool_use is answered in the next message, unless this is the request's last message
    // (the answer being continued, or a prefill).
    if (message.role !== 'assistant' || index === messages.length - 1) continue;
    const answered = toolResultIds(messages[index + 1]);
    const unanswered = [...toolUseIds(message)].filter((id) => !answered.has(id));
    if (unanswered.length > 0)
      return (
        `messages.${index}: \`tool_use\` ids were found without \`tool_result\` blocks immediately after: ${unanswered.join(', ')}. ` +
        'Each `tool_use` block must have a corresponding `tool_result` block in the next message.'
      );
  }
  return undefined;
}

type Message = NonNullable<MessagesRequestBody['messages']>[number];

function toolUseIds(message: Message | undefined): Set<string> {
  if (message?.role !== 'assistant') return new Set();
  return new Set(
    messageBlocks(message)
      .filter((block) => block.type === 'tool_use')
      .map((block) => String(block.id)),
  );
}

function toolResultIds(message: Message | undefined): Set<string> {
  if (message?.role !== 'user') return new Set();
  return new Set(
    messageBlocks(message)
      .filter((block) => block.type === 'tool_result')
      .map((block) => String(block.tool_use_id)),
  );
}
