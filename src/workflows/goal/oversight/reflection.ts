import { z } from 'zod';
import type { GoalContext } from './context';
import { LedgerEventKind } from '../../common/ledger';
import {
  fallbackReflection,
  isEmptyReflection,
  nextReflection,
  parseReflectionSections,
  reflectionPrompt,
  taskPromptWithNotes,
  type ParsedReflection,
  type TaskReflection,
} from '../../reflection/task-reflection';

/** What the reflection's forced tool asks for; blank fields fall back to the original text. */
const reflectionAnswerSchema = z.lazy(() =>
  z.object({
    refinedDescription: z.string().default(''),
    refinedExpectedOutput: z.string().default(''),
    observations: z.array(z.string()).default([]),
    suggestions: z.array(z.string()).default([]),
    text: z.string().optional(),
  }),
);

const reviewAnswerSchema = z.lazy(() =>
  z.object({
    accepted: z.boolean(),
    reasons: z.array(z.string()).default([]),
  }),
);

export interface Review {
  accepted: boolean;
  by: string;
  notes: string;
}

/**
 * Cross-run task reflection (seed 002). The task's own definition never changes: notes from
 * earlier accepted runs are put before it, and a run learns only after its output is accepted.
 */
export class GoalReflection {
  constructor(
    private readonly goal: GoalContext,
    private readonly humanReview: () => Promise<Review | undefined>,
  ) {}

  private get config() {
    return this.goal.state.config;
  }

  private expectedOutput(): string {
    return (
      this.config.reflection.expectedOutput ??
      this.config.successCriteria.map((line) => `- ${line}`).join('\n')
    );
  }

  /** The opening message with "Task Improvement Notes (from prior executions)", when there are any. */
  async openingMessage(): Promise<string | undefined> {
    const loaded = await this.goal.activities.support.loadTaskReflection({ description: this.config.goal });
    this.goal.state.reflection.taskIdentity = loaded.taskIdentity;
    if (!loaded.reflection) return undefined;
    this.goal.state.reflection.notesApplied = true;
    return taskPromptWithNotes({
      description: this.config.goal,
      expectedOutput: this.expectedOutput(),
      reflection: loaded.reflection,
    });
  }

  /** Review the accepted answer, then reflect on it. A failing reflection never fails the goal. */
  async afterFinalAnswer(output: string): Promise<void> {
    const review = await this.review(output);
    this.goal.state.reflection.review = review;
    this.goal.record(
      LedgerEventKind.ReviewCompleted,
      `output ${review.accepted ? 'accepted' : 'rejected'} by ${review.by}`,
      {
        ...review,
      },
    );
    if (!review.accepted) {
      this.goal.state.reflection.outcome = 'skipped: the output was not accepted';
      return;
    }
    await this.reflect(output);
  }

  private async review(output: string): Promise<Review> {
    const mode = this.config.reflection.review;
    if (mode === 'none') return { accepted: true, by: 'nobody (review: none)', notes: '' };
    if (mode === 'human') {
      return (
        (await this.humanReview()) ?? {
          accepted: false,
          by: 'keel',
          notes: 'no human review arrived in time',
        }
      );
    }
    if (this.config.successCriteria.length === 0)
      return { accepted: true, by: 'keel (no success criteria)', notes: '' };
    const answer = await this.goal.structured({
      purpose: 'review',
      prompt: [
        'Judge whether this output meets every success criterion of its goal. Be strict but fair.',
        `## Goal\n${this.config.goal}`,
        `## Success criteria\n${this.expectedOutput()}`,
        `## Output\n${output}`,
        'Answer with accepted (true only if every criterion is met) and the reasons.',
      ].join('\n\n'),
      toolName: 'submit_review',
      description: 'Submit the review verdict.',
      schema: reviewAnswerSchema,
      ...(this.config.reflection.model ? { model: this.config.reflection.model } : {}),
    });
    if (!answer.ok) return { accepted: false, by: 'llm judge', notes: `unusable review: ${answer.error}` };
    return { accepted: answer.value.accepted, by: 'llm judge', notes: answer.value.reasons.join('; ') };
  }

  private async reflect(output: string): Promise<void> {
    const description = this.config.goal;
    const expectedOutput = this.expectedOutput();
    const reflectedAt = new Date().toISOString();
    let prior: TaskReflection | undefined;
    let reflection: TaskReflection;
    try {
      prior = (await this.goal.activities.support.loadTaskReflection({ description })).reflection;
      const parsed = await this.askForReflection({ description, expectedOutput, output, prior });
      if (isEmptyReflection(parsed, { description, expectedOutput })) {
        throw new Error(
          'the reflection answer held no refined description, expected output, observation or suggestion that could be read',
        );
      }
      reflection = nextReflection({ parsed, ...(prior ? { prior } : {}), reflectedAt });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      reflection = fallbackReflection({
        description,
        expectedOutput,
        ...(prior ? { prior } : {}),
        error: message,
        reflectedAt,
      });
      this.goal.record(
        LedgerEventKind.TaskReflectionFailed,
        `reflection failed; ${prior ? 'the earlier notes were kept' : 'a fallback was stored'}: ${message}`,
        {
          error: message,
          keptPriorNotes: prior !== undefined,
        },
      );
    }
    try {
      await this.goal.activities.support.storeTaskReflection({ description, reflection });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.goal.state.reflection.outcome = `not stored: ${message}`;
      this.goal.record(
        LedgerEventKind.TaskReflectionFailed,
        `the reflection could not be stored: ${message}`,
        {},
      );
      return;
    }
    this.goal.state.reflection.outcome = `stored (run ${reflection.runCount})`;
    this.goal.record(LedgerEventKind.TaskReflected, `task reflected (run ${reflection.runCount})`, {
      taskDescription: description,
      reflection,
      isFirstReflection: prior === undefined,
    });
  }

  private async askForReflection(options: {
    description: string;
    expectedOutput: string;
    output: string;
    prior: TaskReflection | undefined;
  }): Promise<ParsedReflection> {
    const template = this.config.reflection.promptTemplate;
    const prompt = template
      ? template
          .replaceAll('{description}', options.description)
          .replaceAll('{expectedOutput}', options.expectedOutput)
          .replaceAll('{output}', options.output)
          .replaceAll('{prior}', options.prior ? JSON.stringify(options.prior) : 'none')
      : reflectionPrompt({ ...options, ...(options.prior ? { prior: options.prior } : {}) });
    const answer = await this.goal.structured({
      purpose: 'task reflection',
      prompt,
      toolName: 'submit_reflection',
      description: 'Submit the refined description, refined expected output, observations and suggestions.',
      schema: reflectionAnswerSchema,
      ...(this.config.reflection.model ? { model: this.config.reflection.model } : {}),
    });
    if (!answer.ok) throw new Error(answer.error);
    const value = answer.value;
    // Prose instead of the tool call: the section format of seed 002 is parsed from the text.
    if (answer.rawFallback) {
      return parseReflectionSections({
        raw: value.text ?? '',
        description: options.description,
        expectedOutput: options.expectedOutput,
      });
    }
    return {
      refinedDescription: value.refinedDescription.trim() || options.description,
      refinedExpectedOutput: value.refinedExpectedOutput.trim() || options.expectedOutput,
      observations: value.observations,
      suggestions: value.suggestions,
    };
  }
}
