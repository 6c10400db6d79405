/**
 * What the harness records once a call has run: its result for the model, the counters and the
 * ledger (host, instance, unknown outcomes), and the principles, planning and assessment
 * bookkeeping. Separate from running the call: held changes that settle are recorded alike.
 */
import { describeFailure, outcomeUnknownDetailsOf } from '../lifecycle/failures';
import type { GoalState, ToolCallRecord } from '../lifecycle/state';
import { LedgerEventKind } from '../../common/ledger';
import { observeToolCall } from '../../principles/principles';
import type { ToolOutcome } from '../../tools/tool-outcome';
import { formatToolResult } from '../../tools/format-tool-result';
import { noteWrites } from '../../hosts/workspace-writes';
import type { ToolCallsHost } from './tool-calls-host';
import { unknownOutcomeText } from './turn';

export class CallResults {
  constructor(private readonly goal: ToolCallsHost) {}

  private get state(): GoalState {
    return this.goal.state;
  }

  recordResult(call: ToolCallRecord, outcome: ToolOutcome): void {
    const counters = this.state.counters;
    const shown = this.state.config.principles.actionableFailure ? outcome : { ...outcome, candidates: [] };
    // A call a rule approved says so in its result, as the ledger and the details do: the model
    // and whoever reads the transcript see that nobody was asked, and which rule answered.
    const decision = call.approval?.decision;
    const byRule = decision?.via === 'rule' && decision.approved ? `(${decision.reason})\n` : '';
    call.result = {
      content: `${byRule}${formatToolResult(shown)}`,
      isError: !outcome.ok,
      ...(outcome.images === undefined ? {} : { images: outcome.images }),
      ...(outcome.documents === undefined ? {} : { documents: outcome.documents }),
      ...(outcome.host === undefined ? {} : { host: outcome.host }),
      ...(outcome.instance === undefined ? {} : { instance: outcome.instance }),
    };
    this.state.workspaceWrites = noteWrites(this.state.workspaceWrites, {
      summary: call.summary,
      readOnly: call.reversibility === 'read-only',
      ok: outcome.ok,
      effects: outcome.effects,
    });
    if (outcome.host !== undefined) {
      const byHost = counters.toolCallsByHost;
      byHost[outcome.host] = (byHost[outcome.host] ?? 0) + 1;
    }
    if (outcome.instance !== undefined) this.recordInstance(call, outcome.instance, outcome.host);
    if (outcome.outsideChanges !== undefined) this.recordOutsideChanges(call, outcome.outsideChanges);
  }

  /**
   * Files changed outside keel between its writes (a person's editor while the goal waited, a
   * build on its own): in the ledger, and told to the model, whose picture of them is older.
   */
  private recordOutsideChanges(call: ToolCallRecord, changes: { count: number; paths: string[] }): void {
    const listed = changes.paths.join(', ');
    const more =
      changes.count > changes.paths.length ? ` and ${changes.count - changes.paths.length} more` : '';
    this.goal.visibility.record(
      LedgerEventKind.WorkspaceChangedOutside,
      `${changes.count} file(s) changed outside keel since its last write: ${listed}${more}`,
      { callId: call.callId, count: changes.count, paths: changes.paths },
    );
    this.state.notes.push(
      `Note: ${changes.count} file(s) in the workspace changed outside keel since its last change (not by your calls): ${listed}${more}. Read them again before relying on what you knew of them.`,
    );
  }

  /**
   * Counts the call for the worker process that ran it, and records in the ledger when that is
   * another process than the one that ran the goal's previous call: one event per change, not
   * per call, keeps a long goal's bounded ledger for its decisions, and still says for every
   * call which instance ran it. Two machines serving one host id alternate here at once.
   */
  private recordInstance(call: ToolCallRecord, instance: string, host: string | undefined): void {
    const byInstance = this.state.counters.toolCallsByInstance;
    byInstance[instance] = (byInstance[instance] ?? 0) + 1;
    const previous = this.state.lastToolInstance;
    if (previous?.instance === instance) return;
    this.state.lastToolInstance = { ...(host === undefined ? {} : { host }), instance };
    const on = host === undefined ? `instance ${instance}` : `host ${host} instance ${instance}`;
    this.goal.visibility.record(
      LedgerEventKind.ToolInstance,
      previous === undefined
        ? `tool calls run on ${on}`
        : `tool calls now run on ${on} (before: instance ${previous.instance})`,
      {
        callId: call.callId,
        toolName: call.toolName,
        ...(host === undefined ? {} : { host }),
        instance,
        ...(previous === undefined ? {} : { previousInstance: previous.instance }),
      },
    );
  }

  /**
   * Principles 1 and 3, planning and assessment bookkeeping after one call. A denial is no
   * failure (issue 44): a denied call still counts as a call for the guards and the budget, but
   * not against the tool's success record, the cadence or the plan step's failures in a row
   * (observeDenial already tightened the cadence and marked the step).
   */
  afterCall(
    call: ToolCallRecord,
    outcome: ToolOutcome | undefined,
    atToolCall: number,
    { denied }: { denied: boolean } = { denied: false },
  ): void {
    const ok = outcome?.ok ?? false;
    if (!denied) {
      const stats = (this.state.assessment.toolStats[call.toolName] ??= { calls: 0, successes: 0 });
      stats.calls += 1;
      if (ok) stats.successes += 1;
    }
    if (ok && call.reversibility !== 'read-only')
      this.state.assessment.lastProgressCycle = this.state.counters.modelTurns;
    const observed = observeToolCall(this.state.principles, this.state.config.principles, {
      input: call.input,
      reversibility: call.reversibility,
      summary: call.summary,
      outcome: outcome ?? { ok: false, content: call.result?.content ?? '', candidates: [], facts: {} },
      denied,
    });
    if (observed.prompt) {
      this.state.notes.push(observed.prompt);
      this.goal.visibility.record(
        LedgerEventKind.HypothesisMismatch,
        `hypothesis mismatch: ${call.summary}`,
        {
          callId: call.callId,
          reason: observed.mismatchReason,
        },
      );
    }
    if (!denied) this.goal.planning.observeCall(ok, observed.prompt !== undefined);
    this.goal.guards.observeCall(call, outcome, atToolCall, observed.prompt !== undefined);
    this.goal.discipline.checkBudget(); // warnings ride on this turn's results; exhaustion ends the goal at the turn's end
  }

  failedCallResult(call: ToolCallRecord, error: unknown): NonNullable<ToolCallRecord['result']> {
    const detail = describeFailure(error);
    if (call.reversibility === 'irreversible') {
      this.state.counters.unknownOutcomes += 1;
      const journal = outcomeUnknownDetailsOf(error);
      this.goal.visibility.record(LedgerEventKind.ToolOutcomeUnknown, `outcome unknown: ${call.summary}`, {
        callId: call.callId,
        toolName: call.toolName,
        // true: the journal shows it began; 'unknown': no journal could say (see goal/lifecycle/activity-proxies.ts)
        began: journal?.began ?? 'unknown',
        ...(journal?.startedAt === undefined ? {} : { startedAt: journal.startedAt }),
        reason: detail,
      });
      return { content: unknownOutcomeText(call.summary, detail), isError: true, unknownOutcome: true };
    }
    return { content: `The tool could not run: ${detail}.`, isError: true };
  }
}
