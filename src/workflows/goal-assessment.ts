import { assess, assessmentDue, BeliefSchema, beliefPrompt } from './assessment';
import { condensableThrough, condensedText, replaceWithBelief } from './consolidation';
import type { GoalContext } from './goal-context';
import { LedgerEventKind } from './ledger';

/**
 * Periodic self-assessment (seed 001): every N model turns the goal looks at its progress, its
 * stagnation, its tools and its memory, and adjusts. Decisions come from the pure `assess`; this
 * file applies them (priority, notes to the model, consolidation per seed 004).
 */
export class GoalAssessment {
  constructor(private readonly goal: GoalContext) {}

  due(): boolean {
    const state = this.goal.state;
    if (state.assessment.requested) return true;
    const cycle = state.counters.modelTurns;
    return (
      cycle > state.assessment.lastAssessmentCycle &&
      assessmentDue({ cycle, interval: state.config.assessment.interval })
    );
  }

  async run(): Promise<void> {
    const state = this.goal.state;
    const cycle = state.counters.modelTurns;
    const result = assess({
      cycle,
      lastAssessmentCycle: state.assessment.lastAssessmentCycle,
      lastProgressCycle: state.assessment.lastProgressCycle,
      progressSinceLastAssessment: false,
      toolStats: state.assessment.toolStats,
      transcriptChars: JSON.stringify(state.transcript).length,
      contextBudgetChars: state.config.assessment.contextBudgetChars,
      priority: state.assessment.priority,
      hasSubGoals: false,
    });
    state.assessment.priority = result.priority;
    state.assessment.lastAssessmentCycle = cycle;
    state.assessment.requested = false;
    state.assessment.count += 1;
    for (const adjustment of result.adjustments) {
      if (adjustment.kind === 'suggest-decomposition') {
        this.goal.note(
          `[Self-assessment] ${adjustment.reason}. Split the goal into smaller sub-goals and finish them one by one.`,
        );
      } else if (adjustment.kind === 'suggest-abandon') {
        this.goal.note(
          `[Self-assessment] ${adjustment.reason}. If no way forward is left, stop and explain what blocks the goal.`,
        );
      } else if (adjustment.kind === 'consolidate') {
        await this.consolidate(adjustment.targetChars);
      }
    }
    this.goal.record(
      LedgerEventKind.AssessmentCompleted,
      `self-assessment at turn ${cycle}: priority ${result.priority}`,
      {
        cycle,
        findings: result.findings,
        adjustments: result.adjustments,
      },
    );
  }

  /** Condense the oldest turns into one belief that replaces them in the model's context. */
  private async consolidate(targetChars: number): Promise<void> {
    const state = this.goal.state;
    const through = condensableThrough({
      transcript: state.transcript,
      keepLatestMessages: state.config.assessment.keepLatestMessages,
      targetChars,
    });
    if (through === undefined) return;
    const answer = await this.goal.structured({
      purpose: 'consolidation',
      prompt: beliefPrompt({
        recentTurnsText: condensedText(state.transcript, through),
        goal: state.config.goal,
      }),
      toolName: 'submit_belief',
      description: 'Submit the one belief that replaces the condensed turns.',
      schema: BeliefSchema,
      fallbackKind: 'agent.reflected',
    });
    if (!answer.ok) return;
    const before = state.transcript.length;
    state.transcript = replaceWithBelief(state.transcript, through, answer.value.text);
    state.assessment.consolidations += 1;
    this.goal.record(LedgerEventKind.AgentReflected, answer.value.text, {
      kind: 'agent.reflected',
      text: answer.value.text,
      condensedMessages: before - state.transcript.length,
    });
  }
}
