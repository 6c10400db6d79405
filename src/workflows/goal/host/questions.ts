import * as wf from '@temporalio/workflow';
import { ActivityFailure, ApplicationFailure, TimeoutFailure } from '@temporalio/workflow';
import { FailureType } from '../../common/failure-types';
import type { BindingChoice, HostAnswer } from '../../hosts/host-binding';
import type { WorkspaceProbe } from '../../hosts/host-queues';

/**
 * How a goal tells a host that said "no" from one that has not answered yet (issue 41): only an
 * answer is final. A host no worker of which took the question is away; one whose worker took it
 * and gave no answer (timeouts, a lost worker, a failed stat, each already retried by the probe's
 * retry policy) is silent and may yet answer; a question that failed for good was refused.
 */
export type Unanswered = 'away' | 'silent' | 'refused';

/** What one host said when asked about the goal's workspace; no probe when it did not answer. */
export interface AskedHost {
  hostId: string;
  probe: WorkspaceProbe | undefined;
  unanswered?: Unanswered;
}

/**
 * Goals that started before the bind waited for silent hosts took a missing answer for a "no"
 * at once; their histories replay that way (Temporal patching). The marker is written only by a
 * goal that comes to wait, so the histories of goals whose hosts answer carry no extra event.
 */
export const PROBE_RETRIED_PATCH = 'probe-retried';

/**
 * The bind's pause between rounds of questions to silent hosts, at first and at most. A host with
 * no free worker is covered by its question waiting in the queue (questionWaitMs); the pause is
 * for a host whose probe fails every time (a workspace it may not read), which waits for a human:
 * at five minutes a day of it is under 300 rounds of history, where 30 s made about 2,900.
 */
const FIRST_PAUSE_MS = 1_000;
const LONGEST_PAUSE_MS = 5 * 60_000;

/** No worker of the host took the activity in time: it never ran, so it is safe to ask again. */
export function isScheduleToStartTimeout(error: unknown): boolean {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof TimeoutFailure &&
    error.cause.timeoutType === 'SCHEDULE_TO_START'
  );
}

/** Why a question failed, from its ActivityFailure (anything not away or refused may yet be answered). */
export function unansweredOf(error: unknown): Unanswered {
  if (isScheduleToStartTimeout(error)) return 'away';
  if (error instanceof ActivityFailure && error.retryState === 'NON_RETRYABLE_FAILURE') return 'refused';
  return 'silent';
}

/**
 * A human's move to a host that gave no answer is refused at once, saying why: the human waits
 * on the Update and can ask again (a goal's start waits instead: settleBinding).
 */
export function noAnswerFailure(answer: AskedHost, queue: string): ApplicationFailure {
  return ApplicationFailure.nonRetryable(
    answer.unanswered === 'away'
      ? `host ${answer.hostId} did not answer: no worker of that host polls ${queue}`
      : `host ${answer.hostId} did not answer: a worker of it took the question but gave no answer (busy or failing); try again`,
    FailureType.UnknownHost,
  );
}

/**
 * Whether a host may still answer: a named host only when a worker of it took the question (no
 * worker at all is an unknown host, said at once); a listed one while the task queue still lists
 * it, even when its workers are too busy to take the question (full activity slots, the load of
 * issue 41). A refused question is never asked again.
 */
export function isPending(
  answer: AskedHost,
  options: { named: boolean; listed: readonly string[] },
): boolean {
  if (answer.probe !== undefined || answer.unanswered === undefined) return false;
  if (answer.unanswered === 'refused') return false;
  if (options.named) return answer.unanswered === 'silent';
  return options.listed.includes(answer.hostId);
}

/** The bind's wait for hosts that had not answered, for the ledger's host.bound. */
export interface BindingWait {
  hosts: string[];
  since: string;
  rounds: number;
}

/**
 * Asks the candidates, then asks the ones that may still answer again (with growing pauses)
 * until chooseBinding can decide without them: the goal binds as soon as one has the workspace,
 * and fails only when every host that may answer has answered. Unnamed goals list the hosts again
 * each round, so a host that stopped (its workers no longer beat) is no longer waited for.
 */
export async function settleBinding(options: {
  candidates: readonly string[];
  named: boolean;
  ask: (hostId: string, questionWaitMs: number) => Promise<AskedHost>;
  choose: (answers: HostAnswer[]) => BindingChoice;
  relist?: () => Promise<readonly string[]>;
  /** How long a question waits for a worker of the host: the first round's, and the longest. */
  firstQuestionWaitMs: number;
  longestQuestionWaitMs: number;
  /** Told once, when the goal starts to wait (it shows the wait), with the hosts it waits for. */
  onWait: (hosts: readonly string[]) => void;
}): Promise<{
  choice: Exclude<BindingChoice, { kind: 'wait' }>;
  answers: AskedHost[];
  waited?: BindingWait;
}> {
  const { named, ask, choose } = options;
  let listed = [...options.candidates];
  let answers = await Promise.all(
    options.candidates.map((hostId) => ask(hostId, options.firstQuestionWaitMs)),
  );
  let waited: BindingWait | undefined;
  let questionWaitMs = options.firstQuestionWaitMs;
  let pauseMs = FIRST_PAUSE_MS;
  for (;;) {
    const choice = choose(
      answers.map((answer) => ({ ...answer, pending: isPending(answer, { named, listed }) })),
    );
    if (choice.kind !== 'wait') return { choice, answers, ...(waited === undefined ? {} : { waited }) };
    if (waited === undefined) {
      if (!wf.patched(PROBE_RETRIED_PATCH)) {
        // A goal that started before the patch: its first answers were final.
        const final = choose(answers.map(({ hostId, probe }) => ({ hostId, probe })));
        if (final.kind !== 'wait') return { choice: final, answers };
      }
      waited = { hosts: choice.hostIds, since: new Date().toISOString(), rounds: 0 };
      options.onWait(choice.hostIds);
    }
    waited.rounds += 1;
    // A silent host fails its question in seconds (its retries spent): the pause keeps a host
    // that fails every probe from filling the history while a human looks.
    await wf.sleep(pauseMs);
    pauseMs = Math.min(pauseMs * 2, LONGEST_PAUSE_MS);
    if (options.relist !== undefined) listed = [...(await options.relist())];
    const again = choice.hostIds.filter((hostId) => named || listed.includes(hostId));
    const fresh = await Promise.all(again.map((hostId) => ask(hostId, questionWaitMs)));
    // A question waits in the host's queue until a worker takes it: a longer wait does not delay
    // the answer, it only keeps a long outage from filling the history.
    questionWaitMs = Math.min(questionWaitMs * 2, options.longestQuestionWaitMs);
    answers = answers.map((answer) => fresh.find((next) => next.hostId === answer.hostId) ?? answer);
  }
}
