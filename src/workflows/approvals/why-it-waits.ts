/**
 * Why a call waits for a human, in words every view shows (`keel pending`, `keel status`, the Web
 * UI's details, the `approval.requested` event): the tool's own reason for the call's tier when it
 * gave one (a refund "over 50", a command naming /etc/passwd), and otherwise what the tier and the
 * goal's policy say. Pure: rendered in the workflow from recorded data.
 */
export function whyItWaits(call: {
  toolName: string;
  reversibility: 'read-only' | 'mutating' | 'irreversible';
  tierReason?: string | undefined;
}): string {
  const own = call.tierReason?.trim();
  if (own !== undefined && own !== '') return own;
  if (call.reversibility === 'irreversible') {
    return `${call.toolName} is irreversible, and irreversible calls always wait for a human`;
  }
  return `${call.toolName} changes the workspace, and this goal asks before every change (approval policy "ask")`;
}
