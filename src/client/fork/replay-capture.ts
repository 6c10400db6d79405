/**
 * A goal's state at a turn, read back from Temporal's history (issue 48). Each run of a goal
 * starts from the state its start event carries (continue-as-new, a fork, a rewind), so only the
 * run that holds the turn is replayed: the latest run that starts at or before it (a rewind's
 * run replaces what came after its turn). That run's start event gets a marker in its memo, and
 * the workflow hands the replayer its state when the marked turn begins
 * (workflows/goal/lineage/fork-capture.ts). The irreversible calls made since are read from the
 * histories' own events, without replaying them. Nothing runs: replay executes no activity.
 */
import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import { decodeArrayFromPayloads } from '@temporalio/common/lib/internal-non-workflow/codec-helpers';
import { loadDataConverter } from '@temporalio/common/lib/internal-non-workflow/data-converter-helpers';
import type { temporal } from '@temporalio/proto';
import { Worker, type InjectedSinks } from '@temporalio/worker';
import { dataConverterFromEnv } from '../../codec/data-converter';
import { checkpointKey, type IrreversibleCall } from '../../workflows/goal/lineage/lineage';
import { FORK_CAPTURE_MEMO_KEY, type ForkCaptureSinks } from '../../workflows/goal/lineage/fork-capture';
import { checkpointHome, type CheckpointHome } from './checkpoint-home';

type History = temporal.api.history.v1.IHistory;
type LoadedConverter = ReturnType<typeof loadDataConverter>;

export interface CapturedTurn {
  /** The goal's state as the turn was about to be asked (validated by the caller). */
  state: unknown;
  /** How long the goal had run then (workflow clock). */
  elapsedMs: number;
}

export interface TurnCapture {
  /** Absent when the goal's current timeline has no such turn. */
  captured?: CapturedTurn;
  /** The turns of the current timeline, for messages: from its first run's first to the last seen. */
  turns: { first: number; last: number };
  /** Irreversible calls made in the run holding the turn after it, and in every later run. */
  irreversibleAfter: IrreversibleCall[];
  /** Where the turn's files are kept (checkpoint-home.ts); absent: nothing changed them since. */
  checkpointHome?: CheckpointHome;
  runs: number;
  /** Events of every run, and of the one replayed. */
  events: number;
  replayedEvents: number;
}

interface Run {
  runId: string;
  history: History;
  /** The model turn its first loop begins at. */
  startTurn: number;
}

/** Every run of the goal, oldest first, with the turn each starts at (from the state it carries). */
async function runsOf(client: Client, workflowId: string, converter: LoadedConverter): Promise<Run[]> {
  const listed: Array<{ runId: string; startMs: number }> = [];
  const query = `WorkflowId = '${workflowId.replace(/['\\]/g, '\\$&')}'`;
  for await (const execution of client.workflow.list({ query })) {
    listed.push({ runId: execution.runId, startMs: execution.startTime.getTime() });
  }
  listed.sort((left, right) => left.startMs - right.startMs);
  return Promise.all(
    listed.map(async ({ runId }) => {
      const history = await client.workflow.getHandle(workflowId, runId).fetchHistory();
      const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
      const [, carried] = await decodeArrayFromPayloads(converter, started?.input?.payloads);
      const turns = (carried as { counters?: { modelTurns?: unknown } } | undefined)?.counters?.modelTurns;
      return { runId, history, startTurn: typeof turns === 'number' ? turns + 1 : 1 };
    }),
  );
}

/** The marker the workflow looks for, naming the turn whose state it copies. */
function marked(history: History, turn: number): History {
  const started = history.events?.[0]?.workflowExecutionStartedEventAttributes;
  if (started == null) throw new Error('a run history without its start event');
  started.memo = {
    fields: {
      ...(started.memo?.fields ?? {}),
      [FORK_CAPTURE_MEMO_KEY]: defaultPayloadConverter.toPayload(turn),
    },
  };
  return history;
}

/**
 * `bundle`: the workflow bundle file the replayer loads (the worker's prebuilt one,
 * worker/bundle-file.ts), or none to bundle the workflow code now (seconds).
 */
export async function captureTurn(
  client: Client,
  workflowId: string,
  turn: number,
  bundle?: string,
): Promise<TurnCapture> {
  const dataConverter = dataConverterFromEnv();
  const converter = loadDataConverter(dataConverter);
  const runs = await runsOf(client, workflowId, converter);
  const events = runs.reduce((sum, run) => sum + (run.history.events?.length ?? 0), 0);
  // The latest run that starts at or before the turn (findLastIndex is not in this target's lib).
  const holding = runs.map((candidate) => candidate.startTurn <= turn).lastIndexOf(true);
  const run = runs[holding];
  if (run === undefined) {
    return {
      turns: { first: runs[0]?.startTurn ?? 0, last: 0 },
      irreversibleAfter: [],
      runs: runs.length,
      events,
      replayedEvents: 0,
    };
  }
  let captured: CapturedTurn | undefined;
  let last = run.startTurn - 1;
  const sinks: InjectedSinks<ForkCaptureSinks> = {
    keelForkCapture: {
      turnStarts: {
        fn: (_info, at, state, elapsedMs) => {
          last = Math.max(last, at);
          if (at === turn && state !== undefined) captured = { state, elapsedMs };
        },
        callDuringReplay: true,
      },
    },
  };
  const options = {
    ...(bundle === undefined
      ? { workflowsPath: require.resolve('../../workflows') }
      : { workflowBundle: { codePath: bundle } }),
    dataConverter,
    sinks,
    replayName: 'keel-fork-capture',
  };
  try {
    await Worker.runReplayHistory(options, marked(run.history, turn), workflowId);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw new Error(`replaying ${workflowId} failed: ${message}`, { cause: error });
  }
  const namedBefore = (captured?.state as { callsNamed?: unknown } | undefined)?.callsNamed;
  const irreversibleAfter = [
    ...(await irreversibleCalls(converter, run, typeof namedBefore === 'number' ? namedBefore : 0, turn)),
    ...(
      await Promise.all(runs.slice(holding + 1).map((later) => irreversibleCalls(converter, later, 0, turn)))
    ).flat(),
  ];
  const home = await checkpointHome(
    converter,
    runs.slice(holding).map((later) => later.history),
    turn,
    checkpointKey(captured?.state ?? {}, workflowId),
  );
  return {
    ...(captured === undefined ? {} : { captured }),
    turns: { first: runs[0]?.startTurn ?? 1, last },
    irreversibleAfter,
    ...(home === undefined ? {} : { checkpointHome: home }),
    runs: runs.length,
    events,
    replayedEvents: run.history.events?.length ?? 0,
  };
}

/**
 * The irreversible calls a run scheduled (only approved ones are: keel-named `call-<n>` past
 * `namedBefore`), as its events say: the call's input, its summary, and whether it completed
 * (an attempt that failed or never answered may or may not have happened).
 */
async function irreversibleCalls(
  converter: LoadedConverter,
  run: Run,
  namedBefore: number,
  fallbackTurn: number,
): Promise<IrreversibleCall[]> {
  const events = run.history.events ?? [];
  const completed = new Set(
    events.flatMap((event) => {
      const id = event.activityTaskCompletedEventAttributes?.scheduledEventId;
      return id == null ? [] : [String(id)];
    }),
  );
  const calls = new Map<string, IrreversibleCall>();
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (scheduled?.activityType?.name !== 'executeTool') continue;
    const [input] = await decodeArrayFromPayloads(converter, scheduled.input?.payloads);
    const call = input as {
      callId?: string;
      toolName?: string;
      reversibility?: string;
      checkpoint?: { turn?: number };
    };
    if (call.reversibility !== 'irreversible' || call.callId === undefined || call.toolName === undefined)
      continue;
    const number = Number(/^call-(\d+)$/.exec(call.callId)?.[1] ?? Number.NaN);
    if (Number.isFinite(number) && number <= namedBefore) continue;
    const [summary] = await decodeArrayFromPayloads(
      converter,
      event.userMetadata?.summary == null ? [] : [event.userMetadata.summary],
    );
    // Any attempt of the call that completed settles it (a retry is scheduled anew after a move).
    const earlier = calls.get(call.callId);
    const done =
      completed.has(String(event.eventId)) || (earlier !== undefined && earlier.unknownOutcome !== true);
    calls.set(call.callId, {
      turn: call.checkpoint?.turn ?? fallbackTurn,
      callId: call.callId,
      toolName: call.toolName,
      summary: typeof summary === 'string' ? summary : call.toolName,
      ...(done ? {} : { unknownOutcome: true }),
    });
  }
  return [...calls.values()];
}
