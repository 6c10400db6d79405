/**
 * A goal's turns as they were, read back from Temporal's history (issue 48): every run of the
 * goal (continue-as-new and rewinds included) is replayed by a replay worker with the fork
 * capture's marker in its start event's memo, and the workflow hands the replayer its state at
 * each turn boundary and the calls of each turn (workflows/goal/lineage/fork-capture.ts). Nothing
 * runs: replay executes no activity, and the goal itself is not touched.
 */
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { temporal } from '@temporalio/proto';
import { Worker, type InjectedSinks } from '@temporalio/worker';
import { dataConverterFromEnv } from '../../codec/data-converter';
import {
  FORK_CAPTURE_MEMO_KEY,
  type CapturedCall,
  type ForkCaptureSinks,
} from '../../workflows/goal/lineage/fork-capture';

export interface CapturedTurn {
  /** The goal's state as the turn was about to be asked (validated by the caller). */
  state: unknown;
  /** How long the goal had run then (workflow clock). */
  elapsedMs: number;
}

export interface CapturedTimeline {
  /** By turn, on the goal's current timeline (a rewind's later run replaces the turns it went back over). */
  turns: Map<number, CapturedTurn>;
  calls: Array<CapturedCall & { turn: number }>;
  runs: number;
  events: number;
}

type History = temporal.api.history.v1.IHistory;

/** Every run of the goal, oldest first. */
async function runHistories(client: Client, workflowId: string): Promise<History[]> {
  const runs: Array<{ runId: string; startMs: number }> = [];
  const query = `WorkflowId = '${workflowId.replace(/['\\]/g, '\\$&')}'`;
  for await (const execution of client.workflow.list({ query })) {
    runs.push({ runId: execution.runId, startMs: execution.startTime.getTime() });
  }
  runs.sort((left, right) => left.startMs - right.startMs);
  const histories: History[] = [];
  for (const run of runs)
    histories.push(await client.workflow.getHandle(workflowId, run.runId).fetchHistory());
  return histories;
}

/** The marker the workflow looks for: only this replay copies its state. */
function marked(history: History): History {
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  if (started == null) throw new Error('a run history without its start event');
  started.memo = {
    fields: {
      ...(started.memo?.fields ?? {}),
      [FORK_CAPTURE_MEMO_KEY]: defaultPayloadConverter.toPayload(true),
    },
  };
  return history;
}

/**
 * `bundle`: the workflow bundle file the replayer loads (the worker's prebuilt one,
 * worker/bundle-file.ts), or none to bundle the workflow code now (seconds).
 */
export async function captureTimeline(
  client: Client,
  workflowId: string,
  bundle?: string,
): Promise<CapturedTimeline> {
  const histories = (await runHistories(client, workflowId)).map(marked);
  const timeline: CapturedTimeline = {
    turns: new Map(),
    calls: [],
    runs: histories.length,
    events: histories.reduce((sum, history) => sum + (history.events?.length ?? 0), 0),
  };
  if (histories.length === 0) return timeline;
  const sinks: InjectedSinks<ForkCaptureSinks> = {
    keelForkCapture: {
      turnStarts: {
        fn: (_info, turn, state, elapsedMs) => {
          // A later run that starts at this turn (a rewind, or the run continued as new) is the timeline from here.
          for (const later of [...timeline.turns.keys()]) if (later > turn) timeline.turns.delete(later);
          timeline.calls = timeline.calls.filter((call) => call.turn < turn);
          timeline.turns.set(turn, { state, elapsedMs });
        },
        callDuringReplay: true,
      },
      callsRan: {
        fn: (_info, turn, calls) => {
          timeline.calls.push(...calls.map((call) => ({ ...call, turn })));
        },
        callDuringReplay: true,
      },
    },
  };
  const dataConverter = dataConverterFromEnv();
  const options = {
    ...(bundle === undefined
      ? { workflowsPath: require.resolve('../../workflows') }
      : { workflowBundle: { codePath: bundle } }),
    dataConverter,
    sinks,
    replayName: 'keel-fork-capture',
  };
  for await (const result of Worker.runReplayHistories(
    options,
    histories.map((history) => ({ workflowId, history })),
  )) {
    if (result.error) throw new Error(`replaying ${workflowId} failed: ${result.error.message}`);
  }
  return timeline;
}
