import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { FailureType } from '../../workflows/common/failure-types';
import {
  WorkspaceProbeState,
  workspaceSourceSchema,
  type WorkspaceSource,
} from '../../workflows/hosts/host-queues';
import { activityContextOrUndefined, heartbeatIntervalMs } from '../activity-context';
import { parseHostActivityInput, workspacePathSchema } from './host-activity-input';
import { workspaceState, type HostIdentity } from './probe-workspace';
import { workspaceStateRoot } from './workspace-state-directory';

export const prepareWorkspaceInputSchema = z
  .object({ workspace: workspacePathSchema, source: workspaceSourceSchema })
  .strict();
export type PrepareWorkspaceInput = z.infer<typeof prepareWorkspaceInputSchema>;

export interface PreparedWorkspace {
  hostId: string;
  /** Whether this call cloned it; false when the workspace was already there (left untouched). */
  cloned: boolean;
}

/**
 * Makes a goal's workspace exist on this host, from its source, when the goal moves here
 * (`keel rebind`). A workspace that is there is left as it is — idempotent, so a retry after a
 * lost answer does no harm. Everything that retrying cannot fix (outside the roots, a file in the
 * way, git refusing the URL or ref) fails as WorkspaceUnpreparable, not retried.
 */
export function createPrepareWorkspaceActivity(host: HostIdentity) {
  const unpreparable = (reason: string) =>
    ApplicationFailure.nonRetryable(`host ${host.hostId}: ${reason}`, FailureType.WorkspaceUnpreparable);

  return {
    async prepareWorkspace(raw: PrepareWorkspaceInput): Promise<PreparedWorkspace> {
      const { workspace, source } = parseHostActivityInput(
        prepareWorkspaceInputSchema,
        raw,
        'prepareWorkspace',
      );
      const state = await workspaceState(workspace, host.workspaceRoots);
      switch (state) {
        case WorkspaceProbeState.Present:
          return { hostId: host.hostId, cloned: false };
        case WorkspaceProbeState.OutsideRoots:
          throw unpreparable(
            `${workspace} is outside this host's workspace roots (${host.workspaceRoots.join(', ')})`,
          );
        case WorkspaceProbeState.NotADirectory:
          throw unpreparable(`${workspace} is a file, not a directory`);
        case WorkspaceProbeState.Missing:
          return { hostId: host.hostId, cloned: await clone(workspace, source, unpreparable) };
      }
    },
  };
}

/**
 * `git clone` into a staging directory beside the workspace (same file system), then one rename:
 * a clone cut off halfway (a crash, a cancellation) never leaves a half workspace that a later
 * probe would call present. Returns false when another attempt put the workspace there first.
 */
async function clone(
  workspace: string,
  source: WorkspaceSource,
  unpreparable: (reason: string) => ApplicationFailure,
): Promise<boolean> {
  const stateRoot = workspaceStateRoot(workspace);
  try {
    await mkdir(path.dirname(workspace), { recursive: true });
    await mkdir(stateRoot, { recursive: true });
  } catch (error) {
    throw unpreparable(`cannot create ${path.dirname(workspace)}: ${(error as Error).message}`);
  }
  // Under .keel-state, so a leftover of a crashed attempt is out of sight of the tools.
  const staging = path.join(stateRoot, `clone-${randomBytes(4).toString('hex')}`);
  const context = activityContextOrUndefined();
  const beat =
    context === undefined || context.info.isLocal
      ? undefined
      : setInterval(() => context.heartbeat({ cloning: source.git }), heartbeatIntervalMs(context));
  try {
    await git(
      ['clone', '--quiet', ...(source.ref ? ['--branch', source.ref] : []), '--', source.git, staging],
      context?.cancellationSignal,
    );
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    const signal = context?.cancellationSignal;
    if (signal?.aborted) throw signal.reason instanceof Error ? signal.reason : error; // cancelled, not failed
    const failed = `git clone ${source.git}${source.ref ? ` (${source.ref})` : ''} failed: ${gitReason(error)}`;
    // The network's trouble passes: retried with backoff (issue 41). git's refusals do not.
    if (isTransientGitFailure(error)) throw new Error(failed, { cause: error });
    throw unpreparable(failed);
  } finally {
    clearInterval(beat);
  }
  try {
    await rename(staging, workspace);
    return true;
  } catch (error) {
    await rm(staging, { recursive: true, force: true });
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EEXIST' || code === 'ENOTEMPTY') return false;
    throw error;
  }
}

/**
 * Configuration every git keel runs is pinned to, given before the subcommand so that nothing of
 * it is written into the clone (issue 43). What a workspace or a remote controls must not make
 * keel's own git run a program on the worker:
 * - core.hooksPath=/dev/null: no hook runs (clone's post-checkout would run what a template dir
 *   or a planted hooks directory holds);
 * - core.fsmonitor=false: checkout never starts an fsmonitor program a config names;
 * - safe.bareRepository=explicit: git never takes a directory for a bare repository because of
 *   what it holds (HEAD, objects/, refs/) — only a path given with --git-dir or GIT_DIR;
 * - protocol.ext.allow=never: an `ext::` source URL is a shell command, not a remote.
 * The system and global files (GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL) are kept on purpose: they
 * are the operator's, not the workspace's, and carry the credential helpers, proxies and
 * insteadOf rules a clone of a private repository needs. -c outranks them all anyway.
 */
export const PINNED_GIT_CONFIG: readonly string[] = [
  '-c',
  'core.hooksPath=/dev/null',
  '-c',
  'core.fsmonitor=false',
  '-c',
  'safe.bareRepository=explicit',
  '-c',
  'protocol.ext.allow=never',
];

async function git(args: string[], signal: AbortSignal | undefined): Promise<void> {
  await promisify(execFile)('git', [...PINNED_GIT_CONFIG, ...args], {
    // Never wait for a password nobody will type: a private URL without credentials fails.
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
    maxBuffer: 1024 * 1024,
    ...(signal ? { signal } : {}),
  });
}

/**
 * git's complaints about the network on the way (a name that did not resolve, a connection
 * refused, reset or timed out, a server's 5xx, a transfer cut short): another attempt may
 * succeed. A repository or ref that does not exist, refused credentials or no git are for good.
 */
const TRANSIENT_GIT_COMPLAINTS = [
  /could not resolve host/i,
  /temporary failure in name resolution/i,
  /failed to connect/i,
  /connection (?:timed out|refused|reset)/i,
  /operation timed out/i,
  /early eof/i,
  /the remote end hung up unexpectedly/i,
  /rpc failed/i,
  /(?:returned error|http): 5\d\d/i,
  /gnutls_handshake|ssl_error_syscall/i,
];

export function isTransientGitFailure(error: unknown): boolean {
  const stderr = String((error as { stderr?: string }).stderr ?? '');
  return TRANSIENT_GIT_COMPLAINTS.some((complaint) => complaint.test(stderr));
}

/** git's own first line of complaint ("fatal: repository '…' does not exist"), else the error. */
function gitReason(error: unknown): string {
  const failure = error as NodeJS.ErrnoException & { stderr?: string };
  if (failure.code === 'ENOENT') return 'git is not installed on this host';
  const lines = String(failure.stderr ?? '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  return lines.find((line) => /^(fatal|error):/.test(line)) ?? lines[0] ?? failure.message;
}
