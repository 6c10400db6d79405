import * as wf from '@temporalio/workflow';
import type { BenchActivities } from '../bench-activities';
import { approvalGate } from './approval-gate';
import type { FloorBlock, FloorMessage, LoopInput, LoopResult } from './floor-types';

const { benchModelTurn, benchRunTool } = wf.proxyActivities<BenchActivities>({
  startToCloseTimeout: '5 minutes',
  retry: { maximumAttempts: 3 },
});

/**
 * The floor: the barest durable agent loop — a model activity, the tool activities of its calls in
 * parallel, results back, until a final answer. The whole conversation goes to every model call,
 * and the run continues as new (carrying it) when Temporal suggests. An approval is one signal.
 */
export async function floorWorkflow(
  input: LoopInput,
  carried?: { messages: FloorMessage[]; toolCalls: number },
): Promise<LoopResult> {
  const gate = approvalGate();
  const messages: FloorMessage[] = carried?.messages ?? [{ role: 'user', content: input.prompt }];
  let toolCalls = carried?.toolCalls ?? 0;
  for (;;) {
    if (wf.workflowInfo().continueAsNewSuggested) {
      await wf.continueAsNew<typeof floorWorkflow>(input, { messages, toolCalls });
    }
    const reply = await benchModelTurn({ messages });
    messages.push({ role: 'assistant', content: reply.content });
    const uses = reply.content.filter((block) => block.type === 'tool_use');
    if (uses.length === 0) {
      const text = reply.content.map((block) => (block.type === 'text' ? block.text : '')).join('');
      return { text, toolCalls };
    }
    const results = await Promise.all(
      uses.map(async (use): Promise<FloorBlock> => {
        const irreversible = use.name === 'run_command';
        if (irreversible) await gate.approval(use.id);
        const content = await benchRunTool({
          name: use.name,
          input: use.input,
          workspace: input.workspace,
          callId: use.id,
          irreversible,
        });
        return { type: 'tool_result', tool_use_id: use.id, content };
      }),
    );
    toolCalls += uses.length;
    messages.push({ role: 'user', content: results });
  }
}
