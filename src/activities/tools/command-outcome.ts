import path from 'node:path';
import { RUN_COMMAND_MAX_TIMEOUT_SECONDS, type RunCommandInput } from './builtin/run-command-input';
import { suggestCall } from '../../workflows/tools/suggest-call';
import type { ToolOutcome, WorkspaceEffects } from '../../workflows/tools/tool-outcome';
import type { ShellProcessResult } from './shell-process';
import type { ToolContext } from './tool-context';
import { escapeRegExp, failure, success } from './tool-outcomes';
import { lstatBeneath, segmentsOf } from './workspace-access/open-beneath';

const STDERR_HEAD_LINES = 10;

/**
 * The result the model reads for a command that ran: exit code, output (stderr first on
 * failure), candidate next actions, and the workspace changes that reached the workspace.
 * `note` follows the output (what keel did with the command's changes, say).
 */
export async function commandOutcome(options: {
  input: RunCommandInput;
  result: ShellProcessResult;
  timeoutSeconds: number;
  context: ToolContext;
  effects?: WorkspaceEffects;
  note?: string;
  /** A candidate next action that comes before the usual ones (keel knows why it failed). */
  firstCandidate?: string;
}): Promise<ToolOutcome> {
  const { input, result, timeoutSeconds, context } = options;
  const facts: ToolOutcome['facts'] = {
    ...(result.exitCode === undefined ? {} : { exitCode: result.exitCode }),
    emptyOutput: result.stdout.isEmpty && result.stderr.isEmpty,
    bytes: result.outputBytes,
    truncated: result.stdout.truncated || result.stderr.truncated,
  };
  const seconds = (result.durationMilliseconds / 1000).toFixed(1);
  const effectsOption = options.effects === undefined ? {} : { effects: options.effects };
  const note = options.note === undefined ? [] : [options.note];

  if (result.timedOut || result.cancelled) {
    const why = result.timedOut
      ? `Timed out after ${timeoutSeconds} s; the command and everything it started were killed.`
      : `Cancelled after ${seconds} s; the command and everything it started were killed.`;
    return failure({
      content: [why, ...outputSections(result, false), ...note].join('\n'),
      candidates: timeoutCandidates(input, timeoutSeconds),
      facts,
      ...effectsOption,
    });
  }
  if (result.exitCode === 0) {
    return success({
      content: [`Exit code 0 after ${seconds} s.`, ...outputSections(result, false), ...note].join('\n'),
      facts,
      ...effectsOption,
    });
  }
  const ending =
    result.exitCode === undefined
      ? `Killed by ${result.signal ?? 'a signal'}`
      : `Exit code ${result.exitCode}`;
  return failure({
    content: [`${ending} after ${seconds} s.`, ...outputSections(result, true), ...note].join('\n'),
    candidates: [
      ...(options.firstCandidate === undefined ? [] : [options.firstCandidate]),
      ...(await failureCandidates({ input, result, context })),
    ].slice(0, 3),
    facts,
    ...effectsOption,
  });
}

/** Output for the model. On failure the first lines of stderr come first: that is where errors are. */
export function outputSections(result: ShellProcessResult, failed: boolean): string[] {
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
    const posix = relative.split(path.sep).join('/');
    try {
      // Looked up without following links: only a real file of the workspace is suggested.
      if ((await lstatBeneath(workspace, segmentsOf(posix))).isFile())
        return { path: posix, line: Number(match[2]) };
    } catch {
      // not a file in the workspace; keep looking
    }
  }
  return undefined;
}
