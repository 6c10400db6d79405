/**
 * OpenTelemetry's GenAI semantic conventions, as keel's spans follow them, so Langfuse, Phoenix,
 * Datadog and other GenAI-aware backends show (and price) keel's model calls as LLM calls, its
 * tool calls as tool executions and a goal's run as an agent invocation. No I/O: the workflow
 * bundle imports this file.
 *
 * Names as of semantic-conventions v1.56 (Development stability, so they may still change):
 * docs/gen-ai/gen-ai-spans.md (inference and execute_tool spans), gen-ai-agent-spans.md
 * (invoke_agent) and anthropic.md (provider `anthropic`; its input tokens include the cache's),
 * https://github.com/open-telemetry/semantic-conventions/blob/v1.56.0/docs/gen-ai/gen-ai-spans.md
 * — the pages have since moved to github.com/open-telemetry/semantic-conventions-genai.
 */
export const GenAiAttribute = {
  OperationName: 'gen_ai.operation.name',
  ProviderName: 'gen_ai.provider.name',
  AgentName: 'gen_ai.agent.name',
  /** A goal is one conversation with the model: its workflow id. */
  ConversationId: 'gen_ai.conversation.id',
  RequestModel: 'gen_ai.request.model',
  RequestMaxTokens: 'gen_ai.request.max_tokens',
  RequestTemperature: 'gen_ai.request.temperature',
  ResponseModel: 'gen_ai.response.model',
  ResponseFinishReasons: 'gen_ai.response.finish_reasons',
  /** Every input token, cached ones included (anthropic.md: input + cache read + cache write). */
  InputTokens: 'gen_ai.usage.input_tokens',
  OutputTokens: 'gen_ai.usage.output_tokens',
  CacheCreationInputTokens: 'gen_ai.usage.cache_creation.input_tokens',
  CacheReadInputTokens: 'gen_ai.usage.cache_read.input_tokens',
  ToolName: 'gen_ai.tool.name',
  ToolCallId: 'gen_ai.tool.call.id',
  /** The general convention's (error.md), which the GenAI spans require when a call failed. */
  ErrorType: 'error.type',
} as const;

export const GenAiOperation = {
  Chat: 'chat',
  ExecuteTool: 'execute_tool',
  InvokeAgent: 'invoke_agent',
} as const;

/** keel speaks the Anthropic Messages API, whichever endpoint serves it. */
export const GEN_AI_PROVIDER = 'anthropic';
/** The agent's name on `invoke_agent` spans: every goal is run by the same agent, keel. */
export const GEN_AI_AGENT_NAME = 'keel';

/** `{operation} {model}`; the operation alone when no model was named (the conventions' fallback). */
export function chatSpanName(model: string | undefined): string {
  return model === undefined ? GenAiOperation.Chat : `${GenAiOperation.Chat} ${model}`;
}

export function executeToolSpanName(tool: string | undefined): string {
  return tool === undefined ? GenAiOperation.ExecuteTool : `${GenAiOperation.ExecuteTool} ${tool}`;
}

export const INVOKE_AGENT_SPAN_NAME = `${GenAiOperation.InvokeAgent} ${GEN_AI_AGENT_NAME}`;

/**
 * `error.type` for a failure: a Temporal failure's type (keel's FailureType constants) or the
 * error's class, never its message (the attribute must stay low-cardinality); `_OTHER` otherwise.
 */
export function errorType(error: unknown): string {
  const type = (error as { type?: unknown } | undefined)?.type;
  if (typeof type === 'string' && type !== '') return type;
  return error instanceof Error ? error.name : '_OTHER';
}
