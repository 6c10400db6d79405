/**
 * The checkpoint guard: whether a reply answers an open checkpoint, the replies remembered to
 * compare with, and the decision after each reply to one (the verdicts: checkpoint-escalation.ts,
 * checkpoint-parrot.ts). Split from guards.ts.
 */
import { rememberReply, repeatsEarlierReply } from './checkpoint-parrot';
import { checkpointIgnoredPrompt, judgeCheckpointReply } from './checkpoint-escalation';
import { GuardAction, GuardName, stopAfterWarning, warn, type GuardDecision } from './guard-decisions';
import type { GuardSettings } from './guards-settings';
import type { GuardsState } from './guards-state';

/**
 * Whether a reply answers an open checkpoint: the generous judge said yes (`judged`), and it does
 * not repeat an earlier reply given while nothing moved, nor a fixed text (checkpoint-parrot.ts).
 */
export function answersCheckpoint(
  state: GuardsState,
  settings: GuardSettings,
  reply: { text: string; judged: boolean },
): { addressed: boolean; repeats?: string } {
  // Anything new since (information, a lasting change, or time waited) makes a repeated true
  // answer an answer: a poller says "still building" again, truly.
  const waitedAtTurn = state.waiting?.atTurn ?? 0;
  const changedAtTurn = Math.max(state.progress.atTurn, waitedAtTurn);
  const lastingChangeAtTurn = Math.max((state.exploration ?? state.progress).atTurn, waitedAtTurn);
  const repeats =
    settings.enabled && settings.checkpoints.enabled
      ? repeatsEarlierReply(reply.text, state.replies, {
          similarity: settings.checkpoints.repeatSimilarity,
          changedAtTurn,
          lastingChangeAtTurn,
        })
      : undefined;
  return { addressed: reply.judged && repeats === undefined, ...(repeats === undefined ? {} : { repeats }) };
}

/** Every reply the model gives joins the comparison set (after it was itself compared). */
export function rememberModelReply(state: GuardsState, text: string, atTurn: number): void {
  state.replies = rememberReply(state.replies, text, atTurn);
}

/** The model's first reply after a checkpoint (or after an enforced one it has not answered yet). */
export function guardCheckpointReply(
  state: GuardsState,
  settings: GuardSettings,
  reply: { addressed: boolean; repeated: boolean; toolCalls: number; modelTurns: number },
): GuardDecision | undefined {
  if (!settings.enabled) return undefined;
  const verdict = judgeCheckpointReply(state.checkpoints, reply.addressed, settings.checkpoints);
  if (verdict.kind === 'none') return undefined;
  state.decisions += 1;
  if (verdict.kind === 'stop') {
    return stopAfterWarning(state, 'checkpoints', {
      guard: GuardName.Checkpoints,
      summary: `checkpoints: ${verdict.heldTurns} replies in a row ignored an enforced checkpoint (answered ${verdict.answered} of ${verdict.judged})`,
      data: { ...verdict, limit: settings.checkpoints.stopAfterHeldTurns, atToolCall: reply.toolCalls },
    });
  }
  const escalated = verdict.kind === 'escalate';
  const data = {
    judged: verdict.judged,
    answered: verdict.answered,
    responseRate: verdict.rate,
    minResponseRate: settings.checkpoints.minResponseRate,
    repeated: reply.repeated,
    atToolCall: reply.toolCalls,
  };
  return warn(state, 'checkpoints', reply, {
    guard: GuardName.Checkpoints,
    action: escalated ? GuardAction.Escalate : GuardAction.Warn,
    summary: escalated
      ? `checkpoints: answered ${verdict.answered} of ${verdict.judged} (below ${settings.checkpoints.minResponseRate}): checkpoints are enforced from now on`
      : `checkpoints: a checkpoint went unanswered${reply.repeated ? ' (the answer repeated an earlier reply)' : ''} (answered ${verdict.answered} of ${verdict.judged})`,
    prompt: checkpointIgnoredPrompt({
      judged: verdict.judged,
      answered: verdict.answered,
      escalated,
      repeated: reply.repeated,
    }),
    data,
  });
}
