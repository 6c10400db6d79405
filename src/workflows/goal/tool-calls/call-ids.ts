import type { ContentBlock, ToolUseBlock, TranscriptMessage } from '../../common/transcript';

/**
 * keel names the calls. The model's tool_use ids are the model's to choose, so an untrusted model
 * can repeat one within a turn or reuse one from an earlier turn; anything keyed by them (a tier,
 * an approval, a signature, the at-most-once journal) could then be shared by two different
 * calls. Each call gets an id of keel's instead, assigned in order over the goal's whole life (it
 * survives continue-as-new in state), and the model's id is kept only to pair the tool_result
 * with its tool_use. Pure and deterministic: the ids follow from recorded history alone.
 */
export interface NamedCall {
  /** keel's id: approvals, signatures, the journal, the ledger and the Web UI use it. */
  readonly callId: string;
  /** The block as it stands in the transcript (its id made unique there if the model's was not). */
  readonly toolUse: ToolUseBlock;
}

export function keelCallId(number: number): string {
  return `call-${number}`;
}

/**
 * The key a call's journal entry and copy-on-write layer are kept under, the same for every
 * attempt of it. keel's call ids restart with each goal, and a goal may reuse the workflow id of
 * one that ended, so the chain's first run id (kept across continue-as-new) tells them apart.
 */
export function idempotencyKeyOf(call: { workflowId: string; firstRunId: string; callId: string }): string {
  return `${call.workflowId}/${call.firstRunId}/${call.callId}`;
}

/**
 * Names a reply's tool calls `call-<n>` from `named + 1` on, and makes every tool_use id in the
 * reply unique in the transcript: a repeated or reused id is replaced by `<id>_keel<n>` (the
 * Messages API pairs each tool_result with one tool_use, so two blocks sharing an id would make
 * the next request ambiguous or invalid). Returns the same reply object when nothing changed.
 */
export function nameCalls(options: {
  reply: TranscriptMessage;
  /** The messages before the reply, whose tool_use ids the reply must not reuse. */
  earlier: readonly TranscriptMessage[];
  /** Calls named so far in the goal. */
  named: number;
}): { reply: TranscriptMessage; calls: NamedCall[]; named: number } {
  const taken = new Set<string>();
  for (const message of options.earlier)
    for (const block of message.content) if (block.type === 'tool_use') taken.add(block.id);
  let named = options.named;
  let changed = false;
  const calls: NamedCall[] = [];
  const content = options.reply.content.map((block): ContentBlock => {
    if (block.type !== 'tool_use') return block;
    named += 1;
    let toolUse = block;
    if (taken.has(block.id)) {
      let id = `${block.id}_keel${named}`;
      while (taken.has(id)) id = `${id}_`;
      toolUse = { ...block, id };
      changed = true;
    }
    taken.add(toolUse.id);
    calls.push({ callId: keelCallId(named), toolUse });
    return toolUse;
  });
  return { reply: changed ? { ...options.reply, content } : options.reply, calls, named };
}
