import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { hostIdSchema } from '../workflows/hosts/host-queues';

/**
 * Who this worker is among keel's hosts and how much it runs at once (issue 9): each from
 * createKeelWorker's options (the CLI flags land there), else the environment, else a default.
 */
export interface HostSettings {
  /** Names this host's task queue and appears in its Temporal identity. */
  hostId: string;
  /** Absolute paths of existing directories; workspaces must lie under one of them. Empty: any path. */
  workspaceRoots: string[];
  maxConcurrentActivities: number;
  maxConcurrentWorkflows: number;
  /** Joins a host id another live machine holds, when both see the same disk (host-claim). */
  replica: boolean;
}

export interface HostSettingsOptions {
  hostId?: string;
  workspaceRoots?: readonly string[];
  replica?: boolean;
  maxConcurrentActivities?: number;
  maxConcurrentWorkflows?: number;
}

/**
 * 20 activities per queue, not the SDK's 100: on the host queue they are tool calls, and commands
 * (builds, test runs) compete for the host's CPU and memory — a hundred at once would thrash a
 * typical 4-8 core machine. On the shared queue they are model calls, which mostly wait on the
 * network; 20 in flight per worker also stays near common API rate limits, and each worker added
 * to the queue adds 20 more.
 */
export const DEFAULT_MAX_CONCURRENT_ACTIVITIES = 20;
/** Workflow tasks are short bursts of CPU (a goal's next decisions): the SDK's own default. */
export const DEFAULT_MAX_CONCURRENT_WORKFLOWS = 40;

/** A setting that would make the worker misbehave: one line naming the variable or option. */
export class HostSettingsError extends Error {
  override readonly name = 'HostSettingsError';
}

/**
 * `rootProblem` says what is wrong with a workspace root on this machine (undefined: nothing); a
 * check of another machine's settings (a compose file's container) passes one that knows its paths.
 */
export function hostSettings(
  options: HostSettingsOptions = {},
  env: NodeJS.ProcessEnv = process.env,
  machine: string = os.hostname(),
  rootProblem: (root: string) => string | undefined = localRootProblem,
): HostSettings {
  return {
    hostId: resolveHostId(options.hostId, env.KEEL_HOST_ID, machine),
    workspaceRoots: resolveRoots(options.workspaceRoots, env.KEEL_WORKSPACE_ROOTS, rootProblem),
    maxConcurrentActivities: resolveCount(
      options.maxConcurrentActivities,
      'maxConcurrentActivities',
      env.KEEL_MAX_CONCURRENT_ACTIVITIES,
      'KEEL_MAX_CONCURRENT_ACTIVITIES',
      DEFAULT_MAX_CONCURRENT_ACTIVITIES,
    ),
    maxConcurrentWorkflows: resolveCount(
      options.maxConcurrentWorkflows,
      'maxConcurrentWorkflows',
      env.KEEL_MAX_CONCURRENT_WORKFLOWS,
      'KEEL_MAX_CONCURRENT_WORKFLOWS',
      DEFAULT_MAX_CONCURRENT_WORKFLOWS,
    ),
    replica: options.replica ?? resolveFlag(env.KEEL_HOST_REPLICA, 'KEEL_HOST_REPLICA'),
  };
}

function resolveFlag(variable: string | undefined, variableName: string): boolean {
  const value = (variable ?? '').trim().toLowerCase();
  if (value === '' || value === '0' || value === 'false') return false;
  if (value === '1' || value === 'true') return true;
  throw new HostSettingsError(`${variableName} must be 1 or 0 (true or false), got "${variable}"`);
}

/**
 * The machine's name as a host id: characters a host id may not hold become '-', the start is a
 * letter or digit, at most 63 characters ("my laptop.local" → "my-laptop.local").
 */
export function defaultHostId(machine: string): string {
  const cleaned = machine
    .replace(/[^A-Za-z0-9._-]/g, '-')
    .replace(/^[^A-Za-z0-9]+/, '')
    .slice(0, 63);
  return cleaned === '' ? 'host' : cleaned;
}

function resolveHostId(option: string | undefined, variable: string | undefined, machine: string): string {
  const [value, source] =
    option !== undefined
      ? [option, 'the hostId option']
      : variable !== undefined && variable.trim() !== ''
        ? [variable.trim(), 'KEEL_HOST_ID']
        : [defaultHostId(machine), undefined];
  const parsed = hostIdSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const reason = parsed.error.issues[0]?.message ?? 'not a valid host id';
  throw new HostSettingsError(`${source ?? 'the host id'} is "${value}": ${reason}`);
}

function resolveRoots(
  option: readonly string[] | undefined,
  variable: string | undefined,
  rootProblem: (root: string) => string | undefined,
): string[] {
  const [roots, source] =
    option !== undefined
      ? [option, 'the workspaceRoots option (--workspace-root)']
      : [(variable ?? '').split(':'), 'KEEL_WORKSPACE_ROOTS (colon-separated)'];
  const given = roots.map((root) => root.trim()).filter((root) => root !== '');
  const relative = given.find((root) => !path.isAbsolute(root));
  if (relative !== undefined)
    throw new HostSettingsError(`${source}: workspace root "${relative}" is not an absolute path`);
  const resolved = [...new Set(given.map((root) => path.resolve(root)))];
  // A typo here would leave the host answering "outside-roots" or "missing" for every goal, and
  // the operator none the wiser: a root must be there when the worker starts.
  for (const root of resolved) {
    const problem = rootProblem(root);
    if (problem !== undefined) throw new HostSettingsError(`${source}: workspace root "${root}" ${problem}`);
  }
  return resolved;
}

function localRootProblem(root: string): string | undefined {
  try {
    return statSync(root).isDirectory() ? undefined : 'is not a directory';
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR'
      ? 'does not exist'
      : `cannot be read (${code ?? String(error)})`;
  }
}

export function resolveCount(
  option: number | undefined,
  optionName: string,
  variable: string | undefined,
  variableName: string,
  fallback: number,
): number {
  if (option !== undefined) {
    if (Number.isInteger(option) && option > 0) return option;
    throw new HostSettingsError(`the ${optionName} option must be a positive whole number, got ${option}`);
  }
  if (variable === undefined || variable.trim() === '') return fallback;
  const value = Number(variable.trim());
  if (/^\d+$/.test(variable.trim()) && value > 0) return value;
  throw new HostSettingsError(`${variableName} must be a positive whole number, got "${variable}"`);
}
