/**
 * An answer the model did not finish (stop-reasons.ts). A refusal fails the goal with
 * ModelRefused; a paused turn goes back as it is; a text cut at max_tokens is kept and the model
 * asked to continue; a tool call cut at max_tokens is never run: every call of that answer is
 * answered unrun, with why.
 */
import { ApplicationFailure } from '@temporalio/workflow';
import { FailureType } from '../../common/failure-types';
import { LedgerEventKind } from '../../common/ledger';
import { appendUserBlocks, textOf, type TranscriptMessage } from '../../common/transcript';
import { cutOff } from '../lifecycle/failures';
import type { GoalState } from '../lifecycle/state';
import type { NamedCall } from '../tool-calls/call-ids';
import type { GoalVisibility } from '../views/visibility';
import { joinedText, untrimmedTextOf, withoutTrailingSpace } from './answer-text';
import { CONTINUE_CUT_TEXT, type StopVerdict } from './stop-reasons';

export interface UnfinishedAnswer {
  reply: TranscriptMessage;
  stop: Exclude<StopVerdict, 'answer'>;
  calls: readonly NamedCall[];
  maxTokens: number;
}

export function afterUnfinishedAnswer(
  goal: { readonly state: GoalState; readonly visibility: GoalVisibility },
  { reply, stop, calls, maxTokens }: UnfinishedAnswer,
): void {
  const { state, visibility } = goal;
  const turn = state.counters.modelTurns;
  switch (stop) {
    case 'refusal': {
      const text = textOf(reply);
      throw ApplicationFailure.nonRetryable(
        `the model refused to continue${text === '' ? '' : `: ${text.slice(0, 300)}`}`,
        FailureType.ModelRefused,
      );
    }
    case 'paused':
      // It goes back as the request's last message, which the API refuses to end in whitespace.
      state.transcript[state.transcript.length - 1] = withoutTrailingSpace(reply);
      visibility.record(
        LedgerEventKind.ModelPaused,
        `model turn ${turn} was paused by the API; sent back to go on`,
        {
          turn,
        },
      );
      return;
    case 'cut-text':
      // Untrimmed: the cut may fall just after a space the continuation does not repeat.
      state.cutText = joinedText(state.cutText, untrimmedTextOf(reply));
      state.transcript = appendUserBlocks(state.transcript, [{ type: 'text', text: CONTINUE_CUT_TEXT }]);
      visibility.record(
        LedgerEventKind.ModelAnswerCut,
        `model turn ${turn} reached max_tokens (${maxTokens}) mid-text; asked to continue`,
        { turn, maxTokens, cut: 'text' },
      );
      return;
    case 'cut-call':
      state.currentTurn = calls.map((call) => cutOff(call, maxTokens));
      visibility.record(
        LedgerEventKind.ModelAnswerCut,
        `model turn ${turn} reached max_tokens (${maxTokens}) while writing a tool call; its ${calls.length} call(s) were not run`,
        { turn, maxTokens, cut: 'tool call', calls: calls.map((call) => call.toolUse.name) },
      );
      return;
  }
}
