/**
 * The forkGoal and rewindGoal Updates' work on the goal's host (issue 48): what `keel fork` and
 * `keel rewind` do on a client, done by the worker with its own client (the activity context's)
 * and its prebuilt workflow bundle. A fork is planned and started here; a rewind is only planned,
 * and the goal continues as a new run from the planned state itself (its Update handler).
 */
import { Context } from '@temporalio/activity';
import { ApplicationFailure } from '@temporalio/common';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/client';
import { z } from 'zod';
import { FailureType } from '../../workflows/common/failure-types';
import type { Lineage } from '../../workflows/goal/lineage/lineage';
import type * as ForkGoal from '../../client/fork/fork-goal';

export const planGoalForkInputSchema = z
  .object({
    workflowId: z.string().min(1),
    kind: z.enum(['fork', 'rewind']),
    turn: z.number().int().positive(),
    say: z.string().optional(),
    by: z.string().optional(),
    /** A fork's workspace; default beside the original's. */
    workspace: z.string().optional(),
    /** The fork's id (the goal's own for a rewind), chosen by the workflow: a retry finds it started. */
    forkId: z.string().min(1),
    taskQueue: z.string().min(1),
  })
  .strict();
export type PlanGoalForkInput = z.input<typeof planGoalForkInputSchema>;

export interface PlannedGoalFork {
  lineage: Omit<Lineage, 'restored'>;
  /** A rewind's state to continue from (the goal's own new run); absent for a fork, already started. */
  carried?: unknown;
}

// eslint-disable-next-line @typescript-eslint/no-require-imports -- the replayer and the client's fork code load only when a goal forks
const forkGoal = () => require('../../client/fork/fork-goal') as typeof ForkGoal;

/**
 * `workflowBundle`: the worker's prebuilt bundle file to replay with (worker/bundle-file.ts, passed
 * in by the worker); without one, the replay bundles the workflow code itself (seconds).
 */
export function createForkPlanActivities(dependencies: {
  workflowBundle?: ((log: (line: string) => void) => Promise<string | undefined>) | undefined;
}) {
  return {
    async planGoalFork(raw: PlanGoalForkInput): Promise<PlannedGoalFork> {
      const parsed = planGoalForkInputSchema.safeParse(raw);
      if (!parsed.success)
        throw ApplicationFailure.nonRetryable(
          `planGoalFork: ${parsed.error.issues[0]?.message ?? 'invalid input'}`,
          FailureType.ForkRefused,
        );
      const input = parsed.data;
      const context = Context.current();
      const { client } = context;
      const bundle = await dependencies.workflowBundle?.((line) => {
        context.log.info(line);
      });
      const { planFork, startFork, ForkRefused } = forkGoal();
      let plan: ForkGoal.ForkPlan;
      try {
        plan = await planFork(client, { ...input, bundle });
      } catch (error) {
        if (!(error instanceof ForkRefused)) throw error;
        // An attempt before this one started the fork, whose files now fill its workspace.
        const started =
          input.kind === 'fork' && context.info.attempt > 1
            ? await client.workflow
                .getHandle(input.forkId)
                .describe()
                .then(() => true)
                .catch(() => false)
            : false;
        throw ApplicationFailure.nonRetryable(
          started
            ? `the fork ${input.forkId} was started by an earlier attempt (keel status ${input.forkId})`
            : error.message,
          FailureType.ForkRefused,
        );
      }
      if (input.kind === 'rewind') return { lineage: plan.lineage, carried: plan.carried };
      try {
        await startFork(client, plan, { forkId: input.forkId, taskQueue: input.taskQueue });
      } catch (error) {
        if (!(error instanceof WorkflowExecutionAlreadyStartedError)) throw error;
        // An attempt before this one started it and was lost before it answered; any other goal
        // of that id is not this fork, and is not taken for it.
        const existing = await client.workflow.getHandle(input.forkId).describe();
        const forkOf: readonly unknown[] = existing.searchAttributes.KeelForkOf ?? [];
        if (!(context.info.attempt > 1 && forkOf.includes(input.workflowId)))
          throw ApplicationFailure.nonRetryable(
            `a goal with id ${input.forkId} exists already: name another`,
            FailureType.ForkRefused,
          );
      }
      return { lineage: plan.lineage };
    },
  };
}
