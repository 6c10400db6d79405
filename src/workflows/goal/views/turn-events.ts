import { LedgerEventKind, type NewLedgerEvent } from '../../common/ledger';
import { textOf, toolUsesOf } from '../../common/transcript';
import type { GoalState, ToolCallRecord } from '../lifecycle/state';
import { abridged } from '../model-turn/answer-text';

/**
 * Runs that started before the live event stream replay without its events: with ledger sinks,
 * an event more can make a batch (an activity) where there was none. Asked once per run, as it
 * starts (one marker event per run).
 */
export const TURN_EVENTS_PATCH = 'turn-events-in-ledger';

/** How much of a turn's answer the ledger keeps: the stream's text events carry it as it forms. */
export const ANSWER_CHARS = 400;
/** How much of a call's result the ledger keeps. */
export const RESULT_CHARS = 240;

export type TurnEvent = Omit<NewLedgerEvent, 'at'>;

/**
 * A goal's turns as events of its live stream (client/goal-events.ts): each model answer, each
 * call as it starts to run and each call's result. They are read off the goal's state whenever
 * the goal shows itself or records another event (views/visibility.ts), rather than recorded where
 * turns and calls happen, so that every stage stays as it was and the events land in the ledger
 * before whatever the turn led to (an approval request, a guard's warning). The ledger is workflow
 * state: recording costs no history event, and queries read it for free.
 */
export class TurnEvents {
  private turnsSeen: number;
  /** The calls of the turn being watched, kept after the goal lets go of it to see its last results. */
  private watched: readonly ToolCallRecord[] = [];
  private readonly seen = new Map<string, 'called' | 'finished'>();
  private readonly enabled: boolean;

  constructor(
    private readonly state: GoalState,
    /** Whether this run records the events (the patch; injectable for tests, outside a workflow). */
    patched: () => boolean = () => true,
  ) {
    // No patch before the first release (search-attributes.test.ts: a marker costs an event and an
    // upsert): asked lazily it also broke replays ("patch marker encountered … but there is no
    // corresponding change command", cli-no-worker.test.ts). The events are workflow state only.
    this.enabled = patched();
    this.turnsSeen = state.counters.modelTurns;
    // A turn carried over from the run before was observed there (it flushes before it hands over).
    this.watch(state.currentTurn ?? []);
  }

  /** The events due since the last look, oldest first; empty in a run from before the stream. */
  take(): TurnEvent[] {
    const events = [...this.answered(), ...this.calls(this.watched)];
    if (this.state.currentTurn !== undefined && this.state.currentTurn !== this.watched) {
      this.seen.clear();
      this.watched = this.state.currentTurn;
      events.push(...this.calls(this.watched));
    }
    return this.enabled ? events : [];
  }

  private watch(turn: readonly ToolCallRecord[]): void {
    this.watched = turn;
    for (const call of turn) {
      if (call.status === 'done') this.seen.set(call.callId, 'finished');
      else if (call.status === 'running') this.seen.set(call.callId, 'called');
    }
  }

  private answered(): TurnEvent[] {
    const turn = this.state.counters.modelTurns;
    if (turn <= this.turnsSeen) return [];
    this.turnsSeen = turn;
    const reply = [...this.state.transcript].reverse().find((message) => message.role === 'assistant');
    if (!reply) return [];
    const text = textOf(reply);
    const tools = toolUsesOf(reply).map((use) => use.name);
    const asked = tools.length === 0 ? '' : ` (asks for ${tools.join(', ')})`;
    return [
      {
        kind: LedgerEventKind.ModelAnswered,
        summary: `model turn ${turn}${asked}: ${abridged(text, 120) || '(no text)'}`,
        data: {
          turn,
          text: abridged(text, ANSWER_CHARS),
          characters: text.length,
          toolCalls: tools,
          ...(this.state.lastModel === undefined ? {} : { model: this.state.lastModel }),
          usage: { ...this.state.usage },
        },
      },
    ];
  }

  private calls(turn: readonly ToolCallRecord[]): TurnEvent[] {
    const events: TurnEvent[] = [];
    for (const call of turn) {
      const seen = this.seen.get(call.callId);
      if (seen === undefined && call.status === 'running') {
        this.seen.set(call.callId, 'called');
        events.push({
          kind: LedgerEventKind.ToolCalled,
          summary: `${call.toolName}: ${abridged(call.summary, 160)}`,
          data: { callId: call.callId, tool: call.toolName, reversibility: call.reversibility },
        });
      }
      if (seen !== 'finished' && call.status === 'done' && call.result) {
        this.seen.set(call.callId, 'finished');
        const result = abridged(call.result.content, RESULT_CHARS);
        events.push({
          kind: LedgerEventKind.ToolFinished,
          summary: `${call.toolName} ${call.result.isError ? 'failed' : 'done'}: ${abridged(result, 120)}`,
          data: {
            callId: call.callId,
            tool: call.toolName,
            isError: call.result.isError,
            ran: seen === 'called',
            result,
            characters: call.result.content.length,
          },
        });
      }
    }
    return events;
  }
}
