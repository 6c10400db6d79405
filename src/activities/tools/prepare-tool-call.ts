/**
 * One call of a turn prepared before anything runs: its input validated, and its tier, reason and
 * label decided, with what this worker's sandbox can hold a command to.
 */
import { Reversibility } from '../../workflows/tools/reversibility';
import type { PreparedCall } from '../../workflows/tools/tool-catalogue';
import type { CommandConfinement, TierContext } from './define-tool';
import { sandboxStatus } from './sandbox/sandbox-status';
import { errorText, type RegisteredTool } from './registered-tool';
import { invalidInputOutcome } from './refused-call-outcomes';

/** What this worker's sandbox can hold a command to (see TierContext.commands). */
export function commandConfinement(): CommandConfinement {
  const status = sandboxStatus();
  if (status.mode === 'unconfined') return 'none';
  return status.layers.available ? 'layers' : 'read-only';
}

export function prepareCall(
  tool: RegisteredTool | undefined,
  call: { callId: string; toolName: string; input: unknown },
  tierContext: TierContext,
): PreparedCall {
  if (tool === undefined) {
    return {
      ok: false,
      callId: call.callId,
      error: `The tool "${call.toolName}" is not available on the worker that checked this call.`,
      candidates: [
        'Use another tool from your list for this step',
        'Explain in your answer which tool is missing',
      ],
    };
  }
  const parsed = tool.parse(call.input);
  if (!parsed.ok) {
    const outcome = invalidInputOutcome(tool, parsed.error);
    return { ok: false, callId: call.callId, error: outcome.content, candidates: outcome.candidates };
  }
  let decision;
  try {
    decision = tool.decideTier(parsed.input, tierContext);
  } catch (error) {
    // A tier function that fails cannot vouch for the call: the strictest tier is the safe answer.
    decision = {
      tier: Reversibility.Irreversible,
      reason: `its tier function failed (${errorText(error)}), so it is treated as irreversible`,
    };
  }
  const fixed = tool.tier.kind === 'fixed' ? tool.tier.tier : undefined;
  return {
    ok: true,
    callId: call.callId,
    input: parsed.input,
    tier: fixed ?? decision.tier,
    ...(fixed === undefined ? { reason: decision.reason } : {}),
    summary: tool.summarize(parsed.input),
  };
}
