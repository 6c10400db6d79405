import * as wf from '@temporalio/workflow';

/** The comparison loops' human gate: a query listing waiting calls, a signal approving one. */
export const pendingCallsQuery = wf.defineQuery<string[]>('pendingCalls');
export const approveCallSignal = wf.defineSignal<[{ callId: string }]>('approveCall');

/** Registers the gate's handlers; `approval(callId)` resolves once that call is approved. */
export function approvalGate(): { approval(callId: string): Promise<void> } {
  const pending = new Set<string>();
  const approved = new Set<string>();
  wf.setHandler(pendingCallsQuery, () => [...pending]);
  wf.setHandler(approveCallSignal, ({ callId }) => {
    approved.add(callId);
  });
  return {
    async approval(callId: string): Promise<void> {
      pending.add(callId);
      await wf.condition(() => approved.has(callId));
      pending.delete(callId);
    },
  };
}
