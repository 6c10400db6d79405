import { requiresHumanApproval } from './approval-policy';
import type { ApprovalPolicy } from '../lifecycle/input';
import type { NamedCall } from './call-ids';
import { callSummary } from '../../tools/call-summary';
import { catalogueEntry, type PreparedCall, type ToolCatalogue } from '../../tools/tool-catalogue';

/**
 * Splits a turn's catalogue calls into those the workflow prepares itself and those the worker
 * must check (the prepareToolCalls local activity: one history event per turn).
 *
 * The workflow prepares a call whose tier is fixed (known from the recorded catalogue) and needs
 * no human under the goal's policy: reads always, mutating calls under `auto`. Its input is not
 * validated here: the tool validates it when it runs, and an invalid one comes back as a failed
 * result naming the fields, which the model corrects like any other failure (it counts as a call,
 * where the worker's check answered it without one). Its label is rendered from the input.
 *
 * Everything else stays with the worker: a per-call tier (run_command) is a function only the
 * worker can run, and a call that waits for a human must be checked before anyone is asked — the
 * approver reads the tool's own label, and is never asked about an input the tool would refuse.
 */
export function splitPreparation(options: {
  calls: readonly NamedCall[];
  catalogue: ToolCatalogue;
  approvalPolicy: ApprovalPolicy;
}): { prepared: PreparedCall[]; forWorker: NamedCall[] } {
  const prepared: PreparedCall[] = [];
  const forWorker: NamedCall[] = [];
  for (const call of options.calls) {
    const { toolUse } = call;
    const tier = catalogueEntry(options.catalogue, toolUse.name)?.tier;
    if (tier?.kind !== 'fixed' || requiresHumanApproval(tier.tier, options.approvalPolicy)) {
      forWorker.push(call);
      continue;
    }
    prepared.push({
      ok: true,
      callId: call.callId,
      input: toolUse.input,
      tier: tier.tier,
      summary: callSummary(toolUse.name, toolUse.input),
    });
  }
  return { prepared, forWorker };
}
