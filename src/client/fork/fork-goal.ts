/**
 * `keel fork` and `keel rewind` (issue 48), as the client does them: the goal's state at the turn
 * from its replayed history (replay-capture.ts), made into a running goal (fork-state.ts), started
 * as a new goal (a fork) or as a new run of the same goal after its current one is cancelled (a
 * rewind). The new goal's first step restores its files from the workspace checkpoints.
 */
import path from 'node:path';
import { readdir } from 'node:fs/promises';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { goalWorkflow } from '../../workflows';
import { loadGoalState } from '../../workflows/goal/lifecycle/state';
import { bindingWorkspace } from '../../workflows/hosts/host-binding';
import { forkedState } from '../../workflows/goal/lineage/fork-state';
import { checkpointKey, type Lineage } from '../../workflows/goal/lineage/lineage';
import { KeelSearchAttributes } from '../../workflows/goal/views/search-attribute-values';
import { captureTurn } from './replay-capture';

/** Something the person asked for that cannot be done: one line, exit 2. */
export class ForkRefused extends Error {}

export interface ForkPlan {
  lineage: Omit<Lineage, 'restored'>;
  /** The state the new goal starts from. */
  carried: ReturnType<typeof forkedState>;
}

export async function planFork(
  client: Client,
  options: {
    workflowId: string;
    kind: Lineage['kind'];
    turn: number;
    say?: string | undefined;
    by?: string | undefined;
    /** The new workspace (fork); absent: beside the original's, named after the fork. */
    workspace?: string | undefined;
    /** A fork written over the original's workspace (the original has ended). */
    inPlace?: boolean | undefined;
    forkId: string;
    /** The queue the new goal runs on (the original's, normally). */
    taskQueue: string;
    /** The prebuilt workflow bundle the history is replayed with (replay-capture.ts). */
    bundle?: string | undefined;
    nowMs?: number;
  },
): Promise<ForkPlan> {
  const capture = await captureTurn(client, options.workflowId, options.turn, options.bundle);
  if (capture.runs === 0) throw new ForkRefused(`no goal with id ${options.workflowId}`);
  const { turns, captured } = capture;
  if (captured === undefined) {
    throw new ForkRefused(
      turns.last < turns.first
        ? `${options.workflowId} has no turn ${options.turn} to go back to`
        : `${options.workflowId} has turns ${turns.first}–${turns.last}; there is no turn ${options.turn}`,
    );
  }
  const loaded = loadGoalState(captured.state);
  if (!loaded.ok) throw new Error(`the state of turn ${options.turn} does not load: ${loaded.message}`);
  const state = loaded.state;
  // The files come from the host that keeps the turn's checkpoints, which a carried move changes.
  const home = capture.checkpointHome;
  if (home?.host !== undefined && state.host !== undefined && state.host.id !== home.host) {
    const { workspace: _there, relative: _relative, ...binding } = state.host;
    state.host = { ...binding, id: home.host };
  }
  const source = home?.workspace ?? bindingWorkspace(state.host, state.config.workspace);
  const target =
    options.kind === 'rewind' || options.inPlace === true
      ? source
      : await newWorkspace(
          options.workspace ?? defaultForkWorkspace(source, options.forkId, options.workflowId),
          source,
        );
  const lineage: ForkPlan['lineage'] = {
    kind: options.kind,
    of: options.workflowId,
    turn: options.turn,
    ...(options.say === undefined ? {} : { say: options.say }),
    ...(options.by === undefined ? {} : { by: options.by }),
    at: new Date(options.nowMs ?? Date.now()).toISOString(),
    workspace: { from: source, to: target },
    checkpointKey: checkpointKey(state, options.workflowId),
    ...(home === undefined ? {} : { checkpointTurn: home.turn }),
    irreversibleAfter: capture.irreversibleAfter,
  };
  const carried = forkedState(state, {
    lineage,
    elapsedMs: captured.elapsedMs,
    nowMs: options.nowMs ?? Date.now(),
    taskQueue: options.taskQueue,
  });
  return { lineage, carried };
}

/** `goal-x-fork-t12-k3f9a1`: says whose fork it is and where it starts. */
export function newForkId(workflowId: string, turn: number): string {
  return `${workflowId}-fork-t${turn}-${Math.random().toString(36).slice(2, 8)}`;
}

/** `/work/app.keel-fork-t2-k3f9a1` for `/work/app`: beside it, under the same workspace root. */
export function defaultForkWorkspace(source: string, forkId: string, workflowId: string): string {
  // `goal-x-fork-t2-k3f9a1` names `app.keel-fork-t2-k3f9a1`; an id of the person's own, whole.
  const own = forkId.startsWith(`${workflowId}-fork-`) ? forkId.slice(workflowId.length + 6) : forkId;
  const suffix = own.replace(/[^A-Za-z0-9._-]+/g, '-').slice(0, 60);
  return path.join(path.dirname(source), `${path.basename(source)}.keel-fork-${suffix}`);
}

async function newWorkspace(requested: string, source: string): Promise<string> {
  if (!path.isAbsolute(requested))
    throw new ForkRefused(`--workspace must be an absolute path: ${requested}`);
  const target = path.resolve(requested);
  const relative = path.relative(source, target);
  if (relative === '' || (!relative.startsWith('..') && !path.isAbsolute(relative))) {
    throw new ForkRefused(`--workspace ${target} lies inside the original's workspace ${source}`);
  }
  const entries = await readdir(target).catch(() => undefined);
  if (entries !== undefined && entries.length > 0) {
    throw new ForkRefused(`--workspace ${target} exists and is not empty`);
  }
  return target;
}

export async function startFork(
  client: Client,
  plan: ForkPlan,
  options: {
    forkId: string;
    taskQueue: string;
    /** A rewind: the goal's running run is ended by the same call that starts the new one (atomic on the server). */
    replaceRunning?: boolean;
  },
): Promise<WorkflowHandle<typeof goalWorkflow>> {
  const goal = plan.carried.config.goal.replace(/\s+/g, ' ').trim();
  const verb = plan.lineage.kind === 'fork' ? 'fork' : 'rewind';
  return client.workflow.start(goalWorkflow, {
    taskQueue: options.taskQueue,
    workflowId: options.forkId,
    args: [plan.carried.config, plan.carried],
    staticSummary: `${verb} of ${plan.lineage.of} at turn ${plan.lineage.turn}: ${goal}`.slice(0, 200),
    typedSearchAttributes: [{ key: KeelSearchAttributes.forkOf, value: plan.lineage.of }],
    ...(options.replaceRunning === true ? { workflowIdConflictPolicy: 'TERMINATE_EXISTING' as const } : {}),
  });
}
