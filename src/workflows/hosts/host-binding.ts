import { z } from 'zod';
import { WorkspaceProbeState, type WorkspaceProbe, type WorkspaceSource } from './host-queues';

/**
 * Which host a goal binds to, decided from what the hosts answered when asked about its
 * workspace. Pure: the answers are activity results recorded in history, so the choice replays.
 */

export const hostBindingSchema = z.lazy(() =>
  z.object({
    id: z.string(),
    /** The task queue of that host's workers: tool calls, backups and the journal go there. */
    queue: z.string(),
    boundAt: z.string(),
    /**
     * probe: the host had the workspace; named: chosen by the goal input; cloned: recreated there;
     * rebound: moved to a host that had it; carried: moved with its workspace from a live host.
     */
    via: z.enum(['probe', 'named', 'cloned', 'rebound', 'carried']),
    /** Set while the host does not take the goal's calls (schedule-to-start timeouts). */
    unavailableSince: z.string().optional(),
    /**
     * The workspace's path on this host, when it differs from the goal input's (the goal moved
     * between hosts with different roots); every workspace activity uses it (bindingWorkspace).
     */
    workspace: z.string().optional(),
    /** The workspace's path under the host's root that holds it, carried to the next host on a move. */
    relative: z.string().optional(),
  }),
);
export type HostBinding = z.infer<typeof hostBindingSchema>;

/** The workspace's path on the bound host: the goal input's, unless a move mapped it. */
export function bindingWorkspace(binding: HostBinding | undefined, inputWorkspace: string): string {
  return binding?.workspace ?? inputWorkspace;
}

/** Where a probe found the workspace, as the binding keeps it (nothing when it is the asked path). */
export function placeOf(
  probe: WorkspaceProbe | undefined,
  asked: string,
): Pick<HostBinding, 'workspace' | 'relative'> {
  return {
    ...(probe?.workspace === undefined || probe.workspace === asked ? {} : { workspace: probe.workspace }),
    ...(probe?.relative === undefined ? {} : { relative: probe.relative }),
  };
}

export type BindingChoice =
  | { kind: 'bind'; hostId: string; via: 'probe' | 'named' }
  /** No host has the workspace, but the goal can recreate it from its source on this host. */
  | { kind: 'clone'; hostId: string }
  /**
   * Hosts that may still answer have not yet: they are asked again, and the goal waits. A late
   * answer is not a "no": taking it for one fails a goal whose host is merely busy (issue 41).
   */
  | { kind: 'wait'; hostIds: string[] }
  | { kind: 'fail'; type: 'UnknownHost' | 'WorkspaceNotFound'; message: string };

/** An answer, or `undefined` when the host did not give one in time. */
export interface HostAnswer {
  hostId: string;
  probe: WorkspaceProbe | undefined;
  /**
   * No answer yet, from a host that may still give one (goal/host/binding.ts decides: a listed host,
   * or a named one whose worker took the question): asked again, never taken for a "no".
   */
  pending?: boolean;
}

export function chooseBinding(options: {
  workspace: string;
  /** The host the goal input names, if any. */
  named?: string;
  answers: readonly HostAnswer[];
  source?: WorkspaceSource;
}): BindingChoice {
  const { workspace, named, answers, source } = options;
  const answering = answers.filter((answer) => answer.probe !== undefined);
  if (named !== undefined) {
    const answer = answers.find((candidate) => candidate.hostId === named);
    if (answer?.pending === true && answer.probe === undefined) return { kind: 'wait', hostIds: [named] };
    if (answer?.probe === undefined) {
      return {
        kind: 'fail',
        type: 'UnknownHost',
        message: `unknown host "${named}": no worker of that host took the goal's question about its workspace`,
      };
    }
    if (answer.probe.state === WorkspaceProbeState.Present)
      return { kind: 'bind', hostId: named, via: 'named' };
    if (source !== undefined && answer.probe.state === WorkspaceProbeState.Missing)
      return { kind: 'clone', hostId: named };
    return {
      kind: 'fail',
      type: 'WorkspaceNotFound',
      message: `host "${named}" does not have the workspace ${workspace} (${describeState(answer.probe.state)})`,
    };
  }
  const holding = answering
    .filter((answer) => answer.probe?.state === WorkspaceProbeState.Present)
    .map((answer) => answer.hostId)
    .sort();
  if (holding[0] !== undefined) return { kind: 'bind', hostId: holding[0], via: 'probe' };
  // Before cloning too: a silent host may hold the workspace, and a fresh clone beside it would
  // quietly start the goal over without its earlier work.
  const silent = answers
    .filter((answer) => answer.probe === undefined && answer.pending === true)
    .map((answer) => answer.hostId)
    .sort();
  if (silent.length > 0) return { kind: 'wait', hostIds: silent };
  if (source !== undefined) {
    const room = answering
      .filter((answer) => answer.probe?.state === WorkspaceProbeState.Missing)
      .map((answer) => answer.hostId)
      .sort();
    if (room[0] !== undefined) return { kind: 'clone', hostId: room[0] };
  }
  const asked = answers.map((answer) => answer.hostId).sort();
  return {
    kind: 'fail',
    type: 'WorkspaceNotFound',
    message:
      asked.length === 0
        ? `workspace ${workspace}: no keel worker polls the task queue, so no host could be asked for it`
        : `workspace ${workspace} exists on no host (asked: ${asked
            .map((hostId) => `${hostId}${answerNote(answers, hostId)}`)
            .join(', ')})`,
  };
}

function answerNote(answers: readonly HostAnswer[], hostId: string): string {
  const probe = answers.find((answer) => answer.hostId === hostId)?.probe;
  return probe === undefined ? ' (no answer)' : ` (${describeState(probe.state)})`;
}

function describeState(state: WorkspaceProbe['state']): string {
  switch (state) {
    case WorkspaceProbeState.Present:
      return 'present';
    case WorkspaceProbeState.Missing:
      return 'missing';
    case WorkspaceProbeState.NotADirectory:
      return 'not a directory';
    case WorkspaceProbeState.OutsideRoots:
      return "outside the host's workspace roots";
  }
}

/** The goal phase's line while its host does not take calls. */
export function unavailableText(binding: HostBinding): string {
  return `workspace host ${binding.id} unavailable since ${binding.unavailableSince ?? 'now'}`;
}

/** What a human can do about an unavailable host (status, Web UI details, ledger). */
export function unavailableActions(options: { workflowId: string; canRecreate: boolean }): string[] {
  const actions = [
    'wait: the goal resumes by itself once a worker of that host polls again',
    `cancel: keel cancel ${options.workflowId}`,
  ];
  actions.push(
    options.canRecreate
      ? `rebind: keel rebind ${options.workflowId} --host <host> (the workspace is cloned there from the goal's git source)`
      : `rebind: keel rebind ${options.workflowId} --host <host>, to a host that has the same workspace (the goal has no git source to recreate it)`,
  );
  return actions;
}
