import { stat } from 'node:fs/promises';
import path from 'node:path';
import {
  RUN_COMMAND_DEFAULT_TIMEOUT_SECONDS,
  RUN_COMMAND_MAX_TIMEOUT_SECONDS,
  type RunCommandInput,
} from './builtin/run-command-input';
import { suggestCall } from '../../workflows/tools/suggest-call';
import type { ToolOutcome, WorkspaceEffects } from '../../workflows/tools/tool-outcome';
import { Reversibility } from '../../workflows/tools/reversibility';
import { commandEnvironment } from './command-environment';
import { runSandboxedCommand } from './sandbox/run-sandboxed-command';
import { sandboxStatus } from './sandbox/sandbox-status';
import { whyNotInsideWorkspace } from './sandbox/unconfined-path-check';
import type { ShellProcessResult } from './shell-process';
import type { ToolContext, ToolImplementation } from './tool-context';
import { escapeRegExp, failure, success } from './tool-outcomes';
import { diffWorkspaceSnapshots, takeWorkspaceSnapshot, type WorkspaceSnapshot } from './workspace-snapshot';

/** Characters of output the model sees at most: stdout and stderr get half each. */
export const RUN_COMMAND_OUTPUT_LIMIT = 20_000;
const DEFAULT_HEARTBEAT_INTERVAL_MILLISECONDS = 5000;
const STDERR_HEAD_LINES = 10;

export const runCommand: ToolImplementation<RunCommandInput> = async (input, context) => {
  const timeoutSeconds = input.timeoutSeconds ?? RUN_COMMAND_DEFAULT_TIMEOUT_SECONDS;
  const status = sandboxStatus();
  // Unconfined, a read-only call (run without approval) may name only what is really inside the
  // workspace; approved calls were seen by a human and run as approved.
  if (status.mode === 'unconfined' && context.reversibility === Reversibility.ReadOnly) {
    const outside = await whyNotInsideWorkspace(input.command, context.workspace);
    if (outside !== undefined) return unconfinedRefusal(input, outside, status.reason);
  }
  const before = await snapshotOrUndefined(() => takeWorkspaceSnapshot({ workspace: context.workspace }));
  const result = await runSandboxedCommand({
    command: input.command,
    workspace: context.workspace,
    // Every call gets a stable key (irreversible ones get the journal's own), so scripts can use it.
    env: commandEnvironment({
      idempotencyKey: context.idempotencyKey ?? `${context.goalId}/${context.callId}`,
    }),
    timeoutMs: timeoutSeconds * 1000,
    network: context.network,
    status,
    outputLimitPerStream: RUN_COMMAND_OUTPUT_LIMIT / 2,
    signal: context.signal,
    heartbeat: () => context.heartbeat(),
    heartbeatIntervalMs: context.heartbeatIntervalMilliseconds ?? DEFAULT_HEARTBEAT_INTERVAL_MILLISECONDS,
  });
  const effects = before === undefined ? undefined : await effectsSince(before, context.workspace);
  const facts: ToolOutcome['facts'] = {
    ...(result.exitCode === undefined ? {} : { exitCode: result.exitCode }),
    emptyOutput: result.stdout.isEmpty && result.stderr.isEmpty,
    bytes: result.outputBytes,
    truncated: result.stdout.truncated || result.stderr.truncated,
  };
  const seconds = (result.durationMilliseconds / 1000).toFixed(1);
  const effectsOption = effects === undefined ? {} : { effects };

  if (result.timedOut || result.cancelled) {
    const why = result.timedOut
      ? `Timed out after ${timeoutSeconds} s; the command and everything it started were killed.`
      : `Cancelled after ${seconds} s; the command and everything it started were killed.`;
    return failure({
      content: [why, ...outputSections(result, false)].join('\n'),
      candidates: timeoutCandidates(input, timeoutSeconds),
      facts,
      ...effectsOption,
    });
  }
  if (result.exitCode === 0) {
    return success({
      content: [`Exit code 0 after ${seconds} s.`, ...outputSections(result, false)].join('\n'),
      facts,
      ...effectsOption,
    });
  }
  const ending =
    result.exitCode === undefined
      ? `Killed by ${result.signal ?? 'a signal'}`
      : `Exit code ${result.exitCode}`;
  return failure({
    content: [`${ending} after ${seconds} s.`, ...outputSections(result, true)].join('\n'),
    candidates: await failureCandidates({ input, result, context }),
    facts,
    ...effectsOption,
  });
};

function unconfinedRefusal(input: RunCommandInput, outside: string, why: string): ToolOutcome {
  return failure({
    content: `Not run: this worker has no sandbox (${why}), and ${outside}. Without a sandbox a command that reaches outside the workspace needs approval, even when it only reads.`,
    candidates: [
      'Name only files inside the workspace (relative paths, no symlinks leading out of it), then run it again',
      `${suggestCall('list_dir', { path: '.' })} — see what the workspace holds`,
      'If reading outside the workspace is really needed, say why in your answer so a human can run or approve it',
    ],
  });
}

/** Effect detection is best-effort: a broken snapshot must not turn a finished command into an error. */
async function snapshotOrUndefined(
  take: () => Promise<WorkspaceSnapshot>,
): Promise<WorkspaceSnapshot | undefined> {
  try {
    return await take();
  } catch {
    return undefined;
  }
}

async function effectsSince(
  before: WorkspaceSnapshot,
  workspace: string,
): Promise<WorkspaceEffects | undefined> {
  const after = await snapshotOrUndefined(() =>
    takeWorkspaceSnapshot({ workspace, kind: before.kind, alsoInclude: Object.keys(before.entries) }),
  );
  return after === undefined ? undefined : diffWorkspaceSnapshots(before, after);
}

/** Output for the model. On failure the first lines of stderr come first: that is where errors are. */
function outputSections(result: ShellProcessResult, failed: boolean): string[] {
  const stdout = result.stdout.toString();
  const stderr = result.stderr.toString();
  if (stdout === '' && stderr === '') return ['(no output)'];
  const sections: string[] = [];
  if (failed && stderr !== '') {
    const lines = stderr.replace(/\n$/, '').split('\n');
    sections.push(`--- stderr (first ${Math.min(lines.length, STDERR_HEAD_LINES)} lines) ---`);
    sections.push(...lines.slice(0, STDERR_HEAD_LINES));
    if (stdout !== '') sections.push('--- stdout ---', stdout.replace(/\n$/, ''));
    if (lines.length > STDERR_HEAD_LINES) {
      sections.push('--- stderr (continued) ---', ...lines.slice(STDERR_HEAD_LINES));
    }
    return sections;
  }
  if (stdout !== '') sections.push('--- stdout ---', stdout.replace(/\n$/, ''));
  if (stderr !== '') sections.push('--- stderr ---', stderr.replace(/\n$/, ''));
  return sections;
}

function timeoutCandidates(input: RunCommandInput, timeoutSeconds: number): string[] {
  const candidates: string[] = [];
  if (timeoutSeconds < RUN_COMMAND_MAX_TIMEOUT_SECONDS) {
    const longer = Math.min(RUN_COMMAND_MAX_TIMEOUT_SECONDS, timeoutSeconds * 4);
    candidates.push(
      `${suggestCall('run_command', { command: input.command, timeoutSeconds: longer })} — allow more time`,
    );
  }
  candidates.push(
    'Run a smaller part of the work (one file, one directory, one case) so it finishes in time',
  );
  candidates.push(
    'Check that the command does not wait for input or run forever (stdin is closed; servers never exit)',
  );
  return candidates;
}

/** A file:line reference in the output, e.g. "src/app.ts:42" (language-neutral). */
const FILE_LINE = /([\w./-]*\w\.\w+):(\d+)/;

async function failureCandidates(options: {
  input: RunCommandInput;
  result: ShellProcessResult;
  context: ToolContext;
}): Promise<string[]> {
  const { input, result, context } = options;
  const candidates: string[] = [];
  // Appending a flag only makes sense for a single simple command.
  const simple = !/[|;&<>()`$\n]/.test(input.command);
  candidates.push(
    simple
      ? `${suggestCall('run_command', { command: `${input.command} --verbose` })} — re-run with a verbose flag (use the command's own, often -v or --verbose) to see more detail`
      : 'Re-run the failing step alone with its verbose flag (often -v or --verbose) to see more detail',
  );
  const program = input.command.trim().split(/\s+/)[0] ?? '';
  if (result.exitCode === 127) {
    candidates.push(
      `${suggestCall('run_command', { command: `which ${program}` })} — the command was not found; check it is installed and on PATH`,
    );
  } else if (result.exitCode === 126) {
    candidates.push(
      `${suggestCall('run_command', { command: `ls -l ${program}` })} — the command is not executable; check its permissions`,
    );
  }
  const text = `${result.stderr.toString()}\n${result.stdout.toString()}`;
  const reference = await existingFileReference(text, context.workspace);
  if (reference !== undefined) {
    candidates.push(
      `${suggestCall('read_file', { path: reference.path, offset: Math.max(1, reference.line - 10), limit: 30 })} — read the code the output points at`,
    );
  }
  const firstError = result.stderr
    .toString()
    .split('\n')
    .find((line) => line.trim() !== '')
    ?.trim();
  if (candidates.length < 3 && firstError !== undefined) {
    candidates.push(
      `${suggestCall('search', { pattern: escapeRegExp(firstError.slice(0, 60)) })} — find where that message comes from`,
    );
  }
  if (candidates.length < 2)
    candidates.push(
      `${suggestCall('list_dir', { path: '.' })} — check the workspace is in the state the command expects`,
    );
  return candidates.slice(0, 3);
}

async function existingFileReference(
  text: string,
  workspace: string,
): Promise<{ path: string; line: number } | undefined> {
  for (const line of text.split('\n').slice(0, 50)) {
    const match = FILE_LINE.exec(line);
    if (match === null) continue;
    const absolute = path.resolve(workspace, match[1] ?? '');
    const relative = path.relative(workspace, absolute);
    if (relative.startsWith('..') || path.isAbsolute(relative)) continue;
    try {
      if ((await stat(absolute)).isFile())
        return { path: relative.split(path.sep).join('/'), line: Number(match[2]) };
    } catch {
      // not a file in the workspace; keep looking
    }
  }
  return undefined;
}
