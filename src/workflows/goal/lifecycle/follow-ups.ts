/**
 * Follow-up messages (the `followUp` signal): after a final answer the goal waits a while for
 * one; each joins the transcript at a turn boundary and starts a new task, with fresh guards.
 */
import * as wf from '@temporalio/workflow';
import { appendUserBlocks } from '../../common/transcript';
import { startTask } from '../../principles/principles';
import { followUpMessage } from '../model-turn/prompts';
import type { GoalGuards } from '../oversight/guards';
import type { GoalVisibility } from '../views/visibility';
import { GoalPhase, type GoalState } from './state';

export class GoalFollowUps {
  constructor(
    private readonly goal: {
      readonly state: GoalState;
      readonly visibility: GoalVisibility;
      readonly guards: GoalGuards;
    },
  ) {}

  /** Follow-up messages join the transcript at a turn boundary and each starts a new task. */
  take(): void {
    const { state, guards } = this.goal;
    while (state.inbox.length > 0) {
      const text = state.inbox.shift() as string;
      state.transcript = appendUserBlocks(state.transcript, [{ type: 'text', text: followUpMessage(text) }]);
      state.tasks.push({
        index: state.tasks.length,
        text,
        startedAt: new Date().toISOString(),
        startedAtTurn: state.counters.modelTurns,
      });
      startTask(state.principles, state.config.principles);
      guards.startTask();
      state.finalText = undefined;
    }
  }

  /** After a final answer: true when a follow-up arrived within the goal's window. */
  async await(): Promise<boolean> {
    const { state, visibility } = this.goal;
    if (state.inbox.length > 0) return true;
    if (state.config.followUpWindowMs === 0) return false;
    state.phase = GoalPhase.AwaitingFollowUp;
    visibility.show();
    return wf.condition(() => state.inbox.length > 0, state.config.followUpWindowMs);
  }
}
