import type Anthropic from '@anthropic-ai/sdk';
import { Context } from '@temporalio/activity';
import { Reversibility } from '../../src/activities/tools/define-tool';
import type { ToolRegistry } from '../../src/activities/tools/tool-registry';
import { BENCH_TOOL_SCHEMAS } from './bench-scenario';
import type { FloorMessage, FloorModelReply, RunToolInput } from './workflows/floor-types';

/**
 * The activities of the two comparison loops: one model turn through the real Anthropic SDK, and
 * one tool call doing the same work keel's tool does (keel's own tool implementation, without
 * keel's bookkeeping around it: no tier decision, journal or heartbeats).
 */
export function createBenchActivities(options: { anthropic: Anthropic; registry: ToolRegistry }) {
  const tools = Object.entries(BENCH_TOOL_SCHEMAS).map(([name, tool]) => ({
    name,
    description: tool.description,
    input_schema: tool.schema as Anthropic.Tool.InputSchema,
  }));

  return {
    async benchModelTurn(input: { messages: FloorMessage[] }): Promise<FloorModelReply> {
      const response = await options.anthropic.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 4096,
        messages: input.messages,
        tools,
      });
      return { content: response.content as FloorModelReply['content'] };
    },

    async benchRunTool(input: RunToolInput): Promise<string> {
      const tool = options.registry.get(input.name);
      if (tool === undefined) return `no tool ${input.name}`;
      const parsed = tool.parse(input.input);
      if (!parsed.ok) return parsed.error;
      const activity = Context.current();
      const goalId = activity.info.workflowExecution?.workflowId ?? input.callId;
      const outcome = await tool.execute(parsed.input, {
        workspace: input.workspace,
        goalId,
        callId: input.callId,
        idempotencyKey: input.irreversible ? `${goalId}/${input.callId}` : undefined,
        reversibility: input.irreversible ? Reversibility.Irreversible : Reversibility.ReadOnly,
        approved: input.irreversible,
        network: false,
        signal: activity.cancellationSignal,
        heartbeat: () => undefined,
        log: activity.log,
      });
      return outcome.content;
    },
  };
}

export type BenchActivities = ReturnType<typeof createBenchActivities>;
