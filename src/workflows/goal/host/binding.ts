import * as wf from '@temporalio/workflow';
import { ActivityFailure, ApplicationFailure } from '@temporalio/workflow';
import type { ActivityProxies } from '../lifecycle/activity-proxies';
import { describeFailure, refuseNested } from '../lifecycle/failures';
import { waitForHost } from './liveness';
import { GoalPhase, type GoalState } from '../lifecycle/state';
import type { GoalVisibility } from '../views/visibility';
import { LedgerEventKind } from '../../common/ledger';
import { FailureType } from '../../common/failure-types';
import { bindingWorkspace, chooseBinding, placeOf, type HostBinding } from '../../hosts/host-binding';
import { carriedFacts, carriedNote, carryPack } from './carry';
import {
  isScheduleToStartTimeout,
  noAnswerFailure,
  settleBinding,
  unansweredOf,
  type AskedHost,
  type BindingWait,
} from './questions';
import { currentHostLoss } from '../../hosts/host-loss';
import { hostTaskQueue, WorkspaceProbeState, type WorkspaceProbe } from '../../hosts/host-queues';
import {
  hasLoss,
  sourceText,
  workspaceLossLine,
  workspaceLossNote,
  workspaceLossOf,
} from '../../hosts/workspace-writes';
import type { WorkspacePack } from '../../hosts/workspace-carry';

/** Hosts answer the binding question within this (a listed host that cannot is not chosen). */
const BIND_QUESTION_TIMEOUT_MS = 15_000;
/** At the start, shorter: each round lists the hosts again, so a host that stopped is let go. */
const LONGEST_BIND_QUESTION_WAIT_MS = 2 * 60_000;

/**
 * The goal's workspace host: bound at the start (the hosts polling the task queue are asked who
 * has the workspace), every workspace activity sent to its queue, and — when its workers take no
 * calls — a visible wait (phase host-unavailable, ledger, candidate actions) until the host is
 * back or a human rebinds the goal. A call never runs on another host.
 */
export class GoalHost {
  private waiting: Promise<void> | undefined;
  private rebinding = false;
  /** Set while a carried move runs: no workspace call starts until the goal is on the new host. */
  private moving = false;
  /** Workspace activities under way (run), which a carried move waits out before it packs. */
  private inFlight = 0;
  /** The hosts asked at the binding, until the binding is in the ledger. */
  private asked: string[] | undefined;
  /** The binding's wait for hosts that had not answered, if it waited, until it is in the ledger. */
  private waited: BindingWait | undefined;

  constructor(
    private readonly goal: {
      readonly state: GoalState;
      readonly activities: ActivityProxies;
      readonly visibility: GoalVisibility;
      readonly workflowId: string;
    },
  ) {}

  private get state(): GoalState {
    return this.goal.state;
  }

  /** The bound host's queue; undefined until the goal binds, as it starts. */
  get queue(): string | undefined {
    return this.state.host?.queue;
  }

  get id(): string | undefined {
    return this.state.host?.id;
  }

  /** The workspace's path on the bound host (a move between hosts with different roots maps it). */
  get workspace(): string {
    return bindingWorkspace(this.state.host, this.state.config.workspace);
  }

  /**
   * Binds the goal to the host that has its workspace (or the one the input names). A host that
   * may still answer and has not yet is waited for, visibly (goal/host/questions.ts). Throws a
   * non-retryable UnknownHost or WorkspaceNotFound failure, which fails the goal at its start.
   */
  async bind(): Promise<void> {
    if (this.state.host !== undefined) return;
    const config = this.state.config;
    const listHosts = async () =>
      (
        await this.goal.activities.startLookups.listHosts.executeWithOptions(
          { summary: 'list the hosts polling the task queue' },
          [{ taskQueue: wf.workflowInfo().taskQueue }],
        )
      ).hosts;
    const candidates = config.host !== undefined ? [config.host] : await listHosts();
    const phaseBefore = this.state.phase;
    const { choice, answers, waited } = await settleBinding({
      candidates,
      named: config.host !== undefined,
      ask: (hostId, waitMs) => this.ask(hostId, waitMs),
      choose: (hostAnswers) =>
        chooseBinding({
          workspace: config.workspace,
          answers: hostAnswers,
          ...(config.host === undefined ? {} : { named: config.host }),
          ...(config.workspaceSource === undefined ? {} : { source: config.workspaceSource }),
        }),
      ...(config.host === undefined ? { relist: listHosts } : {}),
      firstQuestionWaitMs: BIND_QUESTION_TIMEOUT_MS,
      longestQuestionWaitMs: LONGEST_BIND_QUESTION_WAIT_MS,
      onWait: (hosts) => this.showBindingWait(hosts),
    });
    if (waited !== undefined) {
      if (this.state.phase === GoalPhase.HostUnavailable) this.state.phase = phaseBefore;
      this.goal.visibility.show();
    }
    if (choice.kind === 'fail') {
      throw ApplicationFailure.nonRetryable(choice.message, FailureType[choice.type]);
    }
    const probe = answers.find((answer) => answer.hostId === choice.hostId)?.probe;
    refuseNested(probe);
    if (choice.kind === 'clone') await this.recreateOn(choice.hostId, config.workspace);
    this.state.host = {
      ...this.binding(choice.hostId, choice.kind === 'clone' ? 'cloned' : choice.via),
      ...placeOf(probe, config.workspace),
    };
    this.asked = candidates;
    this.waited = waited;
  }

  /**
   * The start waits for hosts that have not answered: shown as the phase a goal whose host is
   * away shows. The ledger has it in host.bound (recorded after goal.started, which listeners
   * expect first), with how long and for whom it waited.
   */
  private showBindingWait(hosts: readonly string[]): void {
    wf.log.warn('waiting for hosts that have not answered whether they have the workspace', { hosts });
    this.state.phase = GoalPhase.HostUnavailable;
    this.goal.visibility.show();
  }

  /** The ledger's `host.bound`, recorded after `goal.started` (which listeners expect first). */
  recordBinding(): void {
    const host = this.state.host;
    if (host === undefined || this.asked === undefined) return;
    const waited = this.waited;
    this.goal.visibility.record(
      LedgerEventKind.HostBound,
      waited === undefined
        ? `bound to host ${host.id}`
        : `bound to host ${host.id} after waiting since ${waited.since} for ${waited.hosts.join(', ')} to answer`,
      { host: host.id, via: host.via, asked: this.asked, ...(waited === undefined ? {} : { waited }) },
    );
    this.asked = undefined;
    this.waited = undefined;
  }

  /**
   * Runs a workspace activity on the goal's host; while the host takes no calls, waits for it
   * (or for a rebind) and asks again. Goals without a host run `call` on the shared queue.
   */
  async run<T>(
    call: (hostQueue: string | undefined) => Promise<T>,
    /** Told of each attempt no worker of the host took (`host` is the host it waited for). */
    onAway?: (host: string, error: unknown) => void,
  ): Promise<T> {
    for (;;) {
      if (this.moving) await wf.condition(() => !this.moving);
      const queue = this.queue;
      const host = this.id;
      this.inFlight += 1;
      try {
        return await call(queue);
      } catch (error) {
        if (queue === undefined || host === undefined || !isScheduleToStartTimeout(error)) throw error;
        onAway?.(host, error);
      } finally {
        this.inFlight -= 1;
      }
      await this.awaitHost();
    }
  }

  /** Parallel calls that all found the host away share one wait. */
  private awaitHost(): Promise<void> {
    this.waiting ??= waitForHost(this.goal, (hostId, waitMs) => this.ask(hostId, waitMs)).finally(() => {
      this.waiting = undefined;
    });
    return this.waiting;
  }

  /** Whether a human may move the goal now; the reason when not. */
  rebindRefusal(hostId: string, carry = false): string | undefined {
    if (this.state.host === undefined) return 'this goal is not bound to a host yet';
    if (this.rebinding) return 'a rebind of this goal is already in progress';
    if (hostId === this.state.host.id) return `the goal is already bound to host ${hostId}`;
    // Away: a call found no worker of the host, or (for a goal parked on a human, which makes no
    // calls) a host watcher saw the host stop beating (hostLiveness signal).
    const away =
      this.state.host.unavailableSince !== undefined ||
      currentHostLoss(this.state.hostMissing, this.state.host.id) !== undefined;
    if (carry)
      return away
        ? `host ${this.state.host.id} is unavailable, so it cannot hand over the workspace: rebind without carrying it`
        : undefined;
    if (!away)
      return `host ${this.state.host.id} is available: a goal moves only while its host is unavailable`;
    return undefined;
  }

  /**
   * A human moves the goal to another host (Update rebindHost): that host must have the
   * workspace, or recreate it from the goal's git source. Throws when it cannot.
   */
  async rebind(hostId: string, by: string, carry = false): Promise<HostBinding> {
    this.rebinding = true;
    try {
      if (carry) return await this.carryTo(hostId, by);
      // The path under the old host's root lets a host with other roots find the workspace.
      const relative = this.state.host?.relative;
      const answer = await this.ask(hostId, BIND_QUESTION_TIMEOUT_MS, relative);
      const source = this.state.config.workspaceSource;
      if (answer.probe === undefined) throw noAnswerFailure(answer, this.queueOf(hostId));
      refuseNested(answer.probe);
      let via: HostBinding['via'] = 'rebound';
      const there = answer.probe.workspace ?? this.state.config.workspace;
      if (answer.probe.state === WorkspaceProbeState.Missing && source !== undefined) {
        await this.recreateOn(hostId, there);
        via = 'cloned';
      } else if (answer.probe.state !== WorkspaceProbeState.Present) {
        throw ApplicationFailure.nonRetryable(
          `host ${hostId} does not have the workspace ${there} (${answer.probe.state})${
            source === undefined ? ' and the goal has no git source to recreate it' : ''
          }`,
          FailureType.WorkspaceNotFound,
        );
      }
      const binding = this.moveTo({ hostId, by, via, probe: answer.probe });
      if (via === 'cloned' && source !== undefined) this.recordRecreation(hostId, sourceText(source));
      this.goal.visibility.show();
      return binding;
    } finally {
      this.rebinding = false;
    }
  }

  /**
   * Moves the goal while its host is alive, with its workspace: no workspace call starts from
   * now on, the ones under way finish, the old host packs the workspace, the workflow carries it
   * chunk by chunk to the new host (activity results and inputs, bounded: workspace-carry.ts),
   * which unpacks it at the goal's path there; then the goal is bound to the new host.
   */
  private async carryTo(hostId: string, by: string): Promise<HostBinding> {
    const from = this.state.host as HostBinding;
    const answer = await this.ask(hostId, BIND_QUESTION_TIMEOUT_MS, from.relative);
    if (answer.probe === undefined) throw noAnswerFailure(answer, this.queueOf(hostId));
    refuseNested(answer.probe);
    const there = answer.probe.workspace ?? this.state.config.workspace;
    if (answer.probe.state !== WorkspaceProbeState.Missing) {
      throw ApplicationFailure.nonRetryable(
        answer.probe.state === WorkspaceProbeState.Present
          ? `host ${hostId} already has a workspace at ${there}: carrying would replace it (remove it there, or move without carrying once host ${from.id} is stopped)`
          : `host ${hostId} cannot take the workspace at ${there} (${answer.probe.state})`,
        FailureType.WorkspaceUnpreparable,
      );
    }
    this.moving = true;
    try {
      await wf.condition(() => this.inFlight === 0);
      return await this.carryAndMove(from, hostId, by, answer.probe);
    } catch (error) {
      // The human reads why (a workspace too large, a host gone midway), not "activity failed".
      if (wf.isCancellation(error) || !(error instanceof ActivityFailure)) throw error;
      const cause = error.cause;
      throw ApplicationFailure.nonRetryable(
        `the workspace could not be carried to host ${hostId}: ${describeFailure(error)}`,
        cause instanceof ApplicationFailure ? cause.type : FailureType.WorkspaceUnpreparable,
      );
    } finally {
      this.moving = false;
    }
  }

  /** Packs on the old host, carries chunk by chunk, unpacks on the new one, then binds the goal there. */
  private async carryAndMove(
    from: HostBinding,
    hostId: string,
    by: string,
    probe: WorkspaceProbe,
  ): Promise<HostBinding> {
    const here = this.workspace;
    const there = probe.workspace ?? this.state.config.workspace;
    const packId = `carry-${Date.now()}`;
    const pack = await carryPack({
      from: { id: from.id, carry: this.goal.activities.onHost(from.queue, BIND_QUESTION_TIMEOUT_MS).carry },
      to: {
        id: hostId,
        carry: this.goal.activities.onHost(this.queueOf(hostId), BIND_QUESTION_TIMEOUT_MS).carry,
      },
      here,
      there,
      packId,
    });
    const binding = this.moveTo({ hostId, by, via: 'carried', probe, carried: pack });
    this.goal.visibility.show();
    return binding;
  }

  /** Binds the goal to its new host and records the move in the ledger. */
  private moveTo(move: {
    hostId: string;
    by: string;
    via: HostBinding['via'];
    probe: WorkspaceProbe;
    carried?: WorkspacePack;
  }): HostBinding {
    const { hostId, by, via, carried } = move;
    const from = this.state.host?.id;
    const binding = { ...this.binding(hostId, via), ...placeOf(move.probe, this.state.config.workspace) };
    this.state.host = binding;
    this.goal.visibility.record(
      LedgerEventKind.HostRebound,
      `moved from host ${from} to ${hostId} by ${by}${carried === undefined ? '' : carriedNote(carried)}`,
      {
        from,
        host: hostId,
        via,
        by,
        ...(binding.workspace === undefined ? {} : { workspace: binding.workspace }),
        ...(carried === undefined ? {} : { carried: carriedFacts(carried) }),
      },
    );
    return binding;
  }

  /**
   * The workspace the goal moved to was recreated from git: the goal's writes since the last
   * (re)creation are not in it. The model is told in its next turn, the ledger records it, and
   * the goal's result carries it (goal/views/status.ts), so the goal cannot end looking whole.
   */
  private recordRecreation(hostId: string, source: string): void {
    const loss = workspaceLossOf(this.state.workspaceWrites, {
      at: new Date().toISOString(),
      host: hostId,
      source,
    });
    delete this.state.workspaceWrites; // the recreated workspace is the new starting point
    this.state.notes.push(workspaceLossNote(loss));
    if (hasLoss(loss)) this.state.workspaceLoss = [...(this.state.workspaceLoss ?? []), loss];
    this.goal.visibility.record(
      LedgerEventKind.HostWorkspaceRecreated,
      hasLoss(loss)
        ? workspaceLossLine(loss)
        : `workspace recreated on host ${hostId} from ${source}; nothing lost`,
      { host: hostId, source, lost: loss.lost, omitted: loss.omitted, unreported: loss.unreported },
    );
  }

  private async recreateOn(hostId: string, workspace: string): Promise<void> {
    const source = this.state.config.workspaceSource;
    if (source === undefined) return;
    await this.goal.activities
      .onHost(this.queueOf(hostId), BIND_QUESTION_TIMEOUT_MS)
      .workspace.prepareWorkspace.executeWithOptions({ summary: `clone ${source.git} on host ${hostId}` }, [
        { workspace, source },
      ]);
  }

  /** Asks one host about the workspace; no answer leaves the probe undefined, and says why. */
  private async ask(hostId: string, timeoutMs: number, relative?: string): Promise<AskedHost> {
    // The bound host is asked about its own path; any other about the goal input's (and, on a
    // move, about the path under its roots).
    const workspace = hostId === this.id ? this.workspace : this.state.config.workspace;
    try {
      const probe = await this.goal.activities
        .onHost(this.queueOf(hostId), timeoutMs)
        .questions.probeWorkspace.executeWithOptions({ summary: `does host ${hostId} have the workspace?` }, [
          { workspace, ...(relative === undefined ? {} : { relative }) },
        ]);
      return { hostId, probe };
    } catch (error) {
      if (wf.isCancellation(error)) throw error;
      const unanswered = unansweredOf(error);
      if (unanswered !== 'away')
        wf.log.warn('host question failed', { hostId, error: describeFailure(error) });
      return { hostId, probe: undefined, unanswered };
    }
  }

  private binding(hostId: string, via: HostBinding['via']): HostBinding {
    return { id: hostId, queue: this.queueOf(hostId), boundAt: new Date().toISOString(), via };
  }

  private queueOf(hostId: string): string {
    return hostTaskQueue(wf.workflowInfo().taskQueue, hostId);
  }
}
