import type { GoalStatusView } from '../workflows/goal/messages';
import { formatElapsed } from '../workflows/principles/budget';
import { decisionHint, labelText } from './approval-lines';
import { within } from '../client/within';
import { childPathOf } from '../workflows/goal/views/child-approval-schema';

/**
 * `keel watch ROOT`'s lines for a goal's delegated children (issue 47): each running child with its
 * own progress, which the watch asks the child for (its status query), and every call of the tree
 * that waits for a human, with the command that decides it from the root. The lines are pure; the
 * asking (childrenProgress) is bounded, so a child that does not answer never holds up a frame.
 */

/** The part of the root's status view these lines read. */
export type WatchChildrenView = Pick<GoalStatusView, 'children' | 'childApprovals'>;

/** What a child's own status query says of its progress, as its line shows it. */
export interface ChildProgress {
  status: string;
  phase: string;
  modelTurns: number;
  toolCalls: number;
}

/**
 * How long a child's answer is waited for in one frame. A child with no worker to answer (its
 * query is held by the server until its deadline) would otherwise stall the root's view.
 */
export const CHILD_ANSWER_MS = 1500;

const TASK_PREVIEW_CHARS = 100;

export function progressOf(view: Pick<GoalStatusView, 'status' | 'phase' | 'counters'>): ChildProgress {
  return {
    status: view.status,
    phase: view.phase,
    modelTurns: view.counters.modelTurns,
    toolCalls: view.counters.toolCalls,
  };
}

/**
 * Each child's progress, asked of all of them at once; a child that fails to answer, or does not
 * answer within `timeoutMs`, is left out (its line says "no answer"), and its query left to settle.
 */
export async function childrenProgress(
  workflowIds: readonly string[],
  ask: (workflowId: string) => Promise<ChildProgress>,
  timeoutMs = CHILD_ANSWER_MS,
): Promise<Record<string, ChildProgress>> {
  const answers = await Promise.all(
    workflowIds.map(async (workflowId) => {
      const progress = await within(ask(workflowId), timeoutMs).catch(() => undefined);
      return progress === undefined ? [] : [[workflowId, progress] as const];
    }),
  );
  return Object.fromEntries(answers.flat());
}

/**
 * "child delegate-1 (read-only): running · thinking · turns 2 · tool calls 3 — <task>", one line per
 * running child, named past the root's id as `keel approve` names its calls. Without `progress`
 * (nobody asked) the line has none; a child missing from it did not answer in time.
 */
export function runningChildLines(
  view: WatchChildrenView,
  workflowId: string,
  progress?: Readonly<Record<string, ChildProgress>>,
): string[] {
  return (view.children ?? []).map((child) => {
    const name = `child ${labelText(childPathOf(workflowId, child.workflowId))} (${labelText(child.workspace)})`;
    const task = taskPreview(child.task);
    if (progress === undefined) return `${name} — ${task}`;
    const answer = progress[child.workflowId];
    const now =
      answer === undefined
        ? 'no answer'
        : `${answer.status} · ${answer.phase} · turns ${answer.modelTurns} · tool calls ${answer.toolCalls}`;
    return `${name}: ${now} — ${task}`;
  });
}

/**
 * The calls the goal's tree waits on, shown as its own pending approvals are, each with the
 * command that decides it from this goal (`keel approve ROOT delegate-1/call-2`).
 */
export function childCallLines(view: WatchChildrenView, workflowId: string, now?: Date): string[] {
  const calls = view.childApprovals ?? [];
  if (calls.length === 0) return [];
  return [
    `waiting in child goals (${calls.length}):`,
    ...calls.flatMap((call) => [
      `  ! ${labelText(call.qualifiedId)}: ${labelText(call.summary)} (${call.reversibility}) until ${call.deadline}${timeLeft(call.deadline, now)}`,
      decisionHint(workflowId, call.qualifiedId),
    ]),
  ];
}

/** " (5m left)" after an approval's deadline, or " (due now)"; empty without a clock. */
export function timeLeft(deadline: string, now: Date | undefined): string {
  if (!now) return '';
  const remainingMs = Date.parse(deadline) - now.getTime();
  if (Number.isNaN(remainingMs)) return '';
  return remainingMs > 0 ? ` (${formatElapsed(remainingMs)} left)` : ' (due now)';
}

/** The task is the parent model's text: one line, nothing a terminal could hide, cut short. */
function taskPreview(task: string): string {
  const line = labelText(task.replace(/\s+/g, ' ').trim());
  return line.length > TASK_PREVIEW_CHARS ? `${line.slice(0, TASK_PREVIEW_CHARS - 1)}…` : line;
}
