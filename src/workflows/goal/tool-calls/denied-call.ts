import type { ToolCatalogue } from '../../tools/tool-catalogue';
import type { ApprovalDecision, ToolCallRecord } from '../lifecycle/state';
import { denialText } from './turn';

/**
 * The result of a denied (or timed-out) call. A held call ran on a copy-on-write layer, so its
 * held result begins "Exit code 0 …": the denial leads instead, and the layer's report follows
 * labelled as context, because its output and its list of refused changes tell the model what
 * was refused (and so what not to ask for again in other words). Pure: the workflow writes it.
 */
export function deniedCallContent(
  decision: ApprovalDecision,
  call: Pick<ToolCallRecord, 'reversibility' | 'toolName' | 'escalation'>,
  catalogue: ToolCatalogue,
): string {
  const held = call.escalation?.changes === undefined ? undefined : call.escalation.content;
  const denial = denialText(decision, call, catalogue, { held: held !== undefined });
  if (held === undefined) return denial;
  return `${denial}\n\n${HELD_REPORT_LABEL}\n${held}`;
}

export const HELD_REPORT_LABEL =
  'For context only, what the command reported on its layer before the decision (none of its changes were applied):';
