import type { Client } from '@temporalio/client';
import { tokenUsageText } from '../workflows/goal/views/details';
import { goalHandle, goalResult, goalStatus, type GoalHandle } from '../client/goal-client';
import type { GoalResult, goalWorkflow } from '../workflows/goal/workflow';
import type { GoalStatusView } from '../workflows/goal/messages';
import { describeResult, finalAnswerPreview } from './follow-goal';
import { finalTextLabel } from './final-text-label';
import { goalPatienceMs, modelActivity, type ModelActivityNow } from '../client/model-progress';
import { modelWaitLogLine, type ModelWait } from '../client/model-wait';
import type { StreamProgress } from '../workflows/goal/model-turn/call-settings';
import { approvalLines, autoDeniedClause, decisionHint, labelText } from './approval-lines';
import { followGoalEvents, type GoalStreamEvent } from '../client/goal-events';
import { eventLines, logLine } from './watch-events';
import {
  childCallLines,
  childrenProgress,
  CHILD_ANSWER_MS,
  progressOf,
  runningChildLines,
  timeLeft,
  type ChildProgress,
} from './watch-children';

/**
 * `keel watch <id>`: a live terminal view of one goal for those who prefer the terminal to the
 * Web UI. The renderer is pure; watchGoal polls the status query and redraws.
 */

/** The status view, plus the plan once the workflow reports one. */
export type WatchableView = GoalStatusView;

export interface WatchViewOptions {
  workflowId: string;
  /** The answer the model is writing now (its streaming call's heartbeat), while it thinks. */
  forming?: StreamProgress;
  /** What the goal's model call waits on after the API turned it away (model-wait.ts). */
  waiting?: ModelWait;
  /** When given, approval deadlines also say how long is left. */
  now?: Date;
  /**
   * The result's lines (describeResult) are printed after the view, as `keel watch` does: the final
   * answer and how an ended goal ended are left to them, so that they are said once.
   */
  resultFollows?: boolean;
  /** The latest events of the goal's stream (goal-events.ts), shown under the view with their offsets. */
  events?: readonly GoalStreamEvent[];
  /**
   * What each running child's own status query said (watch-children.ts), by workflow id; a child
   * not in it gave no answer. Absent: nobody asked, and the children's lines show no progress.
   */
  childProgress?: Readonly<Record<string, ChildProgress>>;
}

const TEXT_PREVIEW_CHARS = 120;

const STEP_MARKERS: Readonly<Record<string, string>> = {
  pending: '[ ]',
  active: '[>]',
  completed: '[x]',
  failed: '[!]',
  skipped: '[-]',
};

export function renderWatchView(view: WatchableView, options: WatchViewOptions): string[] {
  const { workflowId } = options;
  const counters = view.counters;
  const leftToResult = options.resultFollows === true && view.status !== 'running';
  const answer = options.resultFollows === true ? finalAnswerPreview(view) : undefined;
  const messages = view.latestMessages.filter((message) => message !== answer);
  const byTier = counters.toolCallsByReversibility;
  const lines = [
    `keel watch ${workflowId}`,
    `goal: ${preview(view.goal)}`,
    ...(view.task.index > 0 ? [`task ${view.task.index + 1}: ${preview(view.task.text)}`] : []),
    `${view.status} · ${view.phase} · turns ${counters.modelTurns} · tool calls ${counters.toolCalls} (read-only ${byTier['read-only']}, mutating ${byTier.mutating}, irreversible ${byTier.irreversible})`,
    // Under the phase: "thinking" alone hides a goal the API has turned away for minutes.
    ...(options.waiting && view.status === 'running'
      ? [
          `waiting on the model: ${labelText(options.now ? options.waiting.line : modelWaitLogLine(options.waiting))}`,
        ]
      : []),
    `approvals: ${counters.approvalsRequested} requested, ${counters.approvalsGranted} granted, ${counters.approvalsDenied} denied, ${counters.approvalsTimedOut} timed out${autoDeniedClause(counters)} · tokens ${tokenUsageText(view.usage)}`,
  ];
  if (view.plan) {
    lines.push(`plan: attempt ${view.plan.attempt}, strategy ${view.plan.strategy}`);
    for (const step of view.plan.steps) {
      const marker = STEP_MARKERS[step.status] ?? `[${step.status}]`;
      lines.push(`  ${marker} ${step.index + 1}. ${step.toolName} — ${preview(step.rationale)}`);
    }
  }
  lines.push(...runningChildLines(view, workflowId, options.childProgress));
  if (options.forming && view.phase === 'thinking') lines.push(formingLine(options.forming));
  if (messages.length > 0) {
    lines.push('recent:');
    for (const message of messages) lines.push(`  ${preview(message)}`);
  }
  if (view.pendingApprovals.length > 0) {
    lines.push(`pending approvals (${view.pendingApprovals.length}):`);
    for (const approval of view.pendingApprovals) {
      lines.push(
        `  ! ${labelText(approval.summary)} (${approval.reversibility}) until ${approval.deadline}${timeLeft(approval.deadline, options.now)}`,
        ...approvalLines(approval, '      '),
      );
      lines.push(decisionHint(workflowId, approval.callId));
    }
  }
  lines.push(...childCallLines(view, workflowId, options.now));
  if (options.events?.length) lines.push(...eventLines(options.events, workflowId));
  if (leftToResult) return lines;
  if (view.finalText) lines.push(`${finalTextLabel(view.status)}: ${preview(view.finalText)}`);
  if (view.status !== 'running')
    lines.push(`goal ${view.status}${view.endReason ? `: ${view.endReason}` : ''}`);
  return lines;
}

/** "model writing: ~320 tokens, tool write_file: …the latest text" (thinking is labelled so). */
function formingLine(progress: StreamProgress): string {
  const place = progress.waitingForPlace;
  if (place !== undefined)
    return `model call waits for a place: the worker's ${place.places} goals at work are taken, ${place.ahead} ${place.ahead === 1 ? 'goal' : 'goals'} ahead (KEEL_GOALS_AT_WORK)`;
  const what =
    progress.writing === 'tool'
      ? `tool ${progress.tool ?? ''}`.trim()
      : progress.writing === 'thinking'
        ? 'thinking (not its answer)'
        : progress.writing;
  const latest = oneLine(progress.latest);
  return `model writing: ~${progress.outputTokens} tokens, ${what}${latest === '' ? '' : `: …${latest.slice(-TEXT_PREVIEW_CHARS)}`}`;
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

function preview(text: string): string {
  const line = oneLine(text);
  return line.length > TEXT_PREVIEW_CHARS ? `${line.slice(0, TEXT_PREVIEW_CHARS - 1)}…` : line;
}

export interface WatchOptions {
  write: (text: string) => void;
  intervalMs?: number;
  /** Redraw the whole screen (TTY) or print only lines not shown before (logs, pipes). */
  isTTY?: boolean;
  /** The clock, for the time left on approvals; injectable for tests. */
  now?: () => Date;
  /** What the model call shows now: its stream, or its wait (see modelActivity); not asked when absent. */
  model?: () => Promise<ModelActivityNow>;
  /** The caller prints the result's lines after the view (see WatchViewOptions.resultFollows). */
  resultFollows?: boolean;
  /**
   * The goal's event stream is followed from this offset (0: from the start; goal-events.ts): each
   * event redraws the view, and is printed as a line when not a TTY, or listed under the view.
   */
  after?: number;
  /**
   * A running child's progress, for its line under the view; by default its own status query,
   * bounded by CHILD_ANSWER_MS (childrenProgress bounds whatever is given).
   */
  childProgress?: (workflowId: string) => Promise<ChildProgress>;
}

/** Events a TTY frame lists under the view. */
const FRAME_EVENTS = 5;

/** The phases in which the goal waits on a model call (a turn, or a plan). */
const MODEL_PHASES: ReadonlySet<string> = new Set(['thinking', 'planning']);

/** Clear the screen and move the cursor home. */
const CLEAR_SCREEN = '\x1b[2J\x1b[H';

/**
 * Redraws the goal's view every interval until the workflow ends, then resolves with its result
 * (following continue-as-new; a failed goal's result from its failure, see goalResult). A failed
 * query is skipped: there is none to answer before a worker picks the goal up, nor for a moment
 * between runs.
 */
export async function watchGoal(handle: GoalHandle, options: WatchOptions): Promise<GoalResult> {
  const { write } = options;
  const clock = options.now ?? (() => new Date());
  let finished = false;
  const result = goalResult(handle).finally(() => (finished = true));
  // Handled at once: a goal that already ended rejects while the first poll is still out, and an
  // unhandled rejection would end the process with a stack trace instead of keel's one line.
  result.catch(() => undefined);
  let shown = new Set<string>();
  const askChild = options.childProgress ?? childStatusQuery(handle);
  const latest: GoalStreamEvent[] = [];
  const draw = async (final = false): Promise<void> => {
    let view: GoalStatusView;
    try {
      view = await goalStatus(handle);
    } catch {
      return;
    }
    // An ended goal's frame waits for the stream's last events, so its end lines come last.
    if (!final && view.status !== 'running') return;
    // The children are asked beside the model's progress: a slow one delays the frame only so long.
    const [model, childProgress] = await Promise.all([
      MODEL_PHASES.has(view.phase) && options.model
        ? options.model().catch(() => undefined)
        : Promise.resolve(undefined),
      view.children?.length
        ? childrenProgress(
            view.children.map((child) => child.workflowId),
            askChild,
          )
        : Promise.resolve(undefined),
    ]);
    const forming = view.phase === 'thinking' ? model?.progress : undefined;
    const shape = {
      workflowId: handle.workflowId,
      ...(options.resultFollows ? { resultFollows: true } : {}),
      ...(forming ? { forming } : {}),
      ...(model?.wait ? { waiting: model.wait } : {}),
      ...(childProgress ? { childProgress } : {}),
    };
    if (options.isTTY) {
      const lines = renderWatchView(view, { ...shape, now: clock(), events: latest });
      write(`${CLEAR_SCREEN}${lines.join('\n')}\n`);
      return;
    }
    // No clock here: a countdown would reprint its line on every tick of a log.
    const lines = renderWatchView(view, shape);
    const fresh = lines.filter((line) => !shown.has(line));
    if (fresh.length > 0) write(`${fresh.join('\n')}\n`);
    shown = new Set(lines);
  };
  // The stream wakes the view at once; the interval still redraws what has no event (the answer
  // forming, a countdown). Its last events are in before the last frame.
  let wake: () => void = () => undefined;
  const following = (async () => {
    for await (const event of followGoalEvents(handle, { after: options.after ?? 0 })) {
      if (options.isTTY) latest.splice(0, latest.length, ...[...latest, event].slice(-FRAME_EVENTS));
      else {
        const line = logLine(event);
        if (line !== undefined) write(`${line}\n`);
      }
      wake();
    }
  })().catch(() => undefined); // the view goes on without it; the result still ends the watch
  while (!finished) {
    await draw();
    await Promise.race([
      result.catch(() => undefined),
      new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, options.intervalMs ?? 1000);
      }),
    ]);
  }
  await following;
  await draw(true);
  return result;
}

/**
 * A child's progress from its own status query, on the root's connection. The deadline ends the
 * call itself (a child with no worker has its query held by the server), not only the wait for it.
 */
function childStatusQuery(handle: GoalHandle): (workflowId: string) => Promise<ChildProgress> {
  const client = handle.client;
  return (workflowId) =>
    client
      .withDeadline(Date.now() + CHILD_ANSWER_MS, () =>
        goalStatus(client.getHandle<typeof goalWorkflow>(workflowId)),
      )
      .then(progressOf);
}

export interface WatchCommandOptions {
  client: Client;
  workflowId: string;
  write: (text: string) => void;
  /** Defaults to whether stdout is a terminal. */
  isTTY?: boolean;
  intervalMs?: number;
  /** Resume the goal's event stream after this offset (`keel watch --after`). */
  after?: number;
}

/** The body of `keel watch <workflowId>`: the live view, then the result summary. */
export async function watchCommandAction(options: WatchCommandOptions): Promise<GoalResult> {
  const handle = goalHandle(options.client, options.workflowId);
  let patience: { runId: string; ms: Promise<number | undefined> } | undefined;
  const result = await watchGoal(handle, {
    write: options.write,
    isTTY: options.isTTY ?? process.stdout.isTTY === true,
    intervalMs: options.intervalMs,
    after: options.after,
    // The summary below says how the goal ended and its answer, whole: the view leaves them to it.
    resultFollows: true,
    model: async () => {
      // The goal's patience is read once per run, not once a second (one history event each).
      const description = await handle.describe();
      patience =
        patience?.runId === description.runId
          ? patience
          : { runId: description.runId, ms: goalPatienceMs(options.client, description) };
      const ms = patience.ms;
      return modelActivity(options.client, description, Date.now, () => ms);
    },
  });
  options.write(`${describeResult(result).join('\n')}\n`);
  return result;
}
