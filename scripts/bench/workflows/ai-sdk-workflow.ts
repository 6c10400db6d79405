import * as wf from '@temporalio/workflow';
import { temporalProvider } from '@temporalio/ai-sdk/workflow';
import { generateText, isStepCount, jsonSchema, tool, type ToolSet } from 'ai';
import type { BenchActivities } from '../bench-activities';
import { BENCH_TOOL_SCHEMAS } from '../bench-scenario';
import { approvalGate } from './approval-gate';
import type { LoopInput, LoopResult } from './floor-types';

const { benchRunTool } = wf.proxyActivities<BenchActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 3 },
});

/**
 * The nearest peer: the same loop written on @temporalio/ai-sdk. generateText runs the loop in
 * workflow code, each model step is the plugin's model activity, and each tool's execute calls
 * the same tool activity as the floor. (No continue-as-new: the AI SDK loop is one call.)
 */
export async function aiSdkWorkflow(input: LoopInput): Promise<LoopResult> {
  const gate = approvalGate();
  let toolCalls = 0;
  const tools: ToolSet = {};
  for (const [name, definition] of Object.entries(BENCH_TOOL_SCHEMAS)) {
    tools[name] = tool({
      description: definition.description,
      inputSchema: jsonSchema<Record<string, unknown>>(definition.schema as Parameters<typeof jsonSchema>[0]),
      execute: async (args: Record<string, unknown>, { toolCallId }: { toolCallId: string }) => {
        const irreversible = name === 'run_command';
        if (irreversible) await gate.approval(toolCallId);
        toolCalls += 1;
        return benchRunTool({
          name,
          input: args,
          workspace: input.workspace,
          callId: toolCallId,
          irreversible,
        });
      },
    });
  }
  const result = await generateText({
    model: temporalProvider.languageModel('claude-sonnet-4-6'),
    prompt: input.prompt,
    tools,
    stopWhen: isStepCount(100_000),
  });
  return { text: result.text, toolCalls };
}
