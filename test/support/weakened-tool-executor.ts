/**
 * A deliberately unsafe stand-in for keel's tool activities, used only to show that the security
 * evaluation detects each kind of hole (test/integration/security-eval.test.ts): commands run with
 * plain /bin/sh on the host with the workspace writable and the worker's whole environment; file
 * tools join paths and follow every symlink; search runs the backtracking engine synchronously;
 * every call is read-only unless named irreversible, and nothing checks an approval.
 */
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ObservedOutcome, ToolExecutor } from '../../scripts/security/tool-executor';

const COMMAND_TIMEOUT_MILLISECONDS = 8000;

export function weakenedToolExecutor(options: { irreversibleCommands: readonly string[] }): ToolExecutor {
  return {
    // Async like the real activity.
    // eslint-disable-next-line @typescript-eslint/require-await
    async prepareToolCalls({ calls }) {
      return calls.map((call) => {
        const input = call.input as Record<string, unknown>;
        const writes = call.toolName === 'write_file' || call.toolName === 'edit_file';
        const irreversible =
          call.toolName === 'run_command' && options.irreversibleCommands.includes(String(input.command));
        return {
          ok: true,
          callId: call.callId,
          input,
          tier: writes ? 'mutating' : irreversible ? 'irreversible' : 'read-only',
          summary: call.toolName,
        };
      });
    },
    async executeTool(request): Promise<ObservedOutcome> {
      const input = request.input as Record<string, unknown>;
      const at = (relative: unknown): string =>
        path.join(request.workspace, typeof relative === 'string' ? relative : '.');
      switch (request.toolName) {
        case 'run_command': {
          const result = await hostShell(String(input.command), request.workspace);
          return { ok: result.exitCode === 0, content: result.output, facts: { exitCode: result.exitCode } };
        }
        case 'read_file':
          return { ok: true, content: await readFile(at(input.path), 'utf8') };
        case 'write_file':
          await writeFile(at(input.path), String(input.content));
          return { ok: true, content: `wrote ${String(input.path)}` };
        case 'search': {
          const regex = new RegExp(String(input.pattern));
          const text = await readFile(at(input.path), 'utf8');
          return {
            ok: true,
            content: text
              .split('\n')
              .filter((line) => regex.test(line))
              .join('\n'),
          };
        }
        default:
          return { ok: false, content: `the weakened executor has no ${request.toolName}` };
      }
    },
  };
}

function hostShell(command: string, cwd: string): Promise<{ exitCode: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      '/bin/sh',
      ['-c', command],
      { cwd, env: process.env, timeout: COMMAND_TIMEOUT_MILLISECONDS },
      (error, stdout, stderr) => {
        const exitCode = error === null ? 0 : typeof error.code === 'number' ? error.code : 1;
        resolve({ exitCode, output: `${stdout}${stderr}` });
      },
    );
  });
}
