/**
 * What one run_command call costs on the worker in each way it can run, interleaved and measured
 * in the same run (the machine is shared and noisy), as ratios against a floor: bubblewrap alone,
 * the workspace bound read-write, with no effect detection at all.
 *
 * - read-only: bubblewrap with the workspace bound read-only (no effects to detect);
 * - layered: a mutating call on a copy-on-write layer: unshare, two mounts, bwrap over the merged
 *   view, taking stock of the layer and applying it;
 * - previous: the design before the layers, for comparison: bwrap read-write plus effect detection
 *   by git on the host (rev-parse, check-ignore and status, before and after), as it ran then.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { commandEnvironment } from '../../src/activities/tools/command-environment';
import { runCommand } from '../../src/activities/tools/run-command';
import { runSandboxedCommand, sandboxStatus } from '../../src/activities/tools/sandbox';
import type { ToolContext } from '../../src/activities/tools/tool-context';
import { spread, type Spread } from './stats';

export interface CommandCostsResult {
  samples: number;
  floorMs: Spread;
  readOnlyMs: Spread;
  layeredMs: Spread;
  previousMs: Spread;
}

const WORKSPACE_FILES = 200;

export async function measureCommandCosts(
  samples: number,
  log: (line: string) => void,
): Promise<CommandCostsResult> {
  const status = sandboxStatus();
  if (status.mode !== 'bubblewrap' || !status.layers.available)
    throw new Error(`needs bubblewrap and copy-on-write layers on this host (${JSON.stringify(status)})`);
  const root = mkdtempSync(path.join(tmpdir(), 'keel-bench-commands-'));
  try {
    const workspace = path.join(root, 'workspace');
    prepare(workspace);
    const floorMs: number[] = [];
    const readOnlyMs: number[] = [];
    const layeredMs: number[] = [];
    const previousMs: number[] = [];
    log(`bench: run_command costs, ${samples} samples of each way (interleaved)`);
    for (let sample = 0; sample < samples; sample += 1) {
      floorMs.push(await timed(() => direct(workspace, `echo ${sample} >> appended.txt`)));
      readOnlyMs.push(
        await timed(() => runCommand({ command: 'cat README.md' }, context(workspace, 'read-only', sample))),
      );
      layeredMs.push(
        await timed(() =>
          runCommand({ command: `echo ${sample} >> appended.txt` }, context(workspace, 'mutating', sample)),
        ),
      );
      previousMs.push(
        await timed(async () => {
          gitEffectProbe(workspace, 'before');
          await direct(workspace, `echo ${sample} >> appended.txt`);
          gitEffectProbe(workspace, 'after');
        }),
      );
    }
    return {
      samples,
      floorMs: spread(floorMs),
      readOnlyMs: spread(readOnlyMs),
      layeredMs: spread(layeredMs),
      previousMs: spread(previousMs),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** A small git repository, as most workspaces are: its size matters to git status, not to a layer. */
function prepare(workspace: string): void {
  mkdirSync(path.join(workspace, 'src'), { recursive: true });
  writeFileSync(path.join(workspace, 'README.md'), 'bench\n');
  for (let index = 0; index < WORKSPACE_FILES; index += 1)
    writeFileSync(
      path.join(workspace, 'src', `file-${index}.ts`),
      `export const value${index} = ${index};\n`,
    );
  const git = (...args: string[]) => execFileSync('git', args, { cwd: workspace, stdio: 'ignore' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.email=bench@example.com', '-c', 'user.name=bench', 'commit', '-qm', 'bench');
}

function direct(workspace: string, command: string) {
  return runSandboxedCommand({
    command,
    workspace,
    env: commandEnvironment({ idempotencyKey: 'bench' }),
    timeoutMs: 60_000,
  });
}

/**
 * What the previous design ran on the host around every command to find its effects: before,
 * whether the workspace is a git work tree (rev-parse, check-ignore) and what git status says;
 * after, git status again (files it lists were hashed too, not counted here).
 */
function gitEffectProbe(workspace: string, when: 'before' | 'after'): void {
  const git = (...args: string[]) => {
    try {
      execFileSync('git', args, { cwd: workspace, stdio: 'pipe' });
    } catch {
      // check-ignore exits 1 for "not ignored"
    }
  };
  if (when === 'before') {
    git('rev-parse', '--show-toplevel');
    git('check-ignore', '-q', '--', workspace);
  }
  git('rev-parse', '--show-toplevel');
  git('status', '--porcelain=v1', '-z', '--untracked-files=all', '--no-renames', '--', '.');
}

function context(workspace: string, reversibility: 'read-only' | 'mutating', sample: number): ToolContext {
  return {
    workspace,
    goalId: 'bench',
    callId: `call-${sample}`,
    callKey: `bench/${reversibility}/${sample}`,
    idempotencyKey: undefined,
    reversibility,
    approved: false,
    network: false,
    signal: new AbortController().signal,
    heartbeat: () => undefined,
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
  };
}

async function timed(work: () => Promise<unknown>): Promise<number> {
  const started = process.hrtime.bigint();
  await work();
  return Number(process.hrtime.bigint() - started) / 1e6;
}
