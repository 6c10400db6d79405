import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { ScenarioInput } from '../../src/scripted-model/scenario';
import { goalStatusQuery } from '../../src/workflows/goal/messages';
import { eventually, type Harness } from './temporal';

/**
 * The CLI as users run it, and the scripted goals it drives, shared by
 * test/integration/cli-*.test.ts: each file starts its own harness with them.
 */

const KEEL = path.resolve(__dirname, '../../bin/keel.js');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export function keel(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [KEEL, ...args],
      { env: { ...process.env, ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

export function assertOneLineFailure(run: CliRun, pattern: RegExp): void {
  assert.notEqual(run.code, 0, 'non-zero exit');
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line, got:\n${run.stderr}`);
  assert.match(lines[0] ?? '', pattern);
  assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
}

export const cliScenarios: ScenarioInput[] = [
  {
    name: 'cli',
    match: 'GOAL-CLI',
    turns: [
      { toolCalls: [{ name: 'run_command', input: { command: 'echo from-cli > cli.txt' } }] },
      { text: 'CLI goal done.' },
    ],
  },
  {
    name: 'cli-signed',
    match: 'SIGNED-GOAL',
    turns: [
      { toolCalls: [{ name: 'run_command', input: { command: 'echo signed > signed.txt' } }] },
      { text: 'signed goal done' },
    ],
  },
  {
    name: 'cli-remember',
    match: 'REMEMBER-GOAL',
    turns: [
      { toolCalls: [{ name: 'run_command', input: { command: 'rm -rf build' } }] },
      { toolCalls: [{ name: 'run_command', input: { command: 'rm -r ./build' } }] },
      { text: 'remember goal done' },
    ],
  },
  {
    name: 'cli-rules',
    match: 'RULES-GOAL',
    turns: [
      {
        toolCalls: ['echo allowed 1', 'echo bulk 1', 'echo bulk 2'].map((command) => ({
          name: 'run_command',
          input: { command },
        })),
      },
      { toolCalls: [{ name: 'run_command', input: { command: 'rm -rf build' } }] },
      { toolCalls: [{ name: 'run_command', input: { command: 'rm -r build/cache' } }] },
      { toolCalls: [{ name: 'run_command', input: { command: 'echo the end' } }] },
      { text: 'rules goal done' },
    ],
  },
  {
    name: 'cli-wait',
    match: 'WAITING-GOAL',
    turns: [{ toolCalls: [{ name: 'list_dir', input: { path: '.' } }] }, { text: 'waited to the end' }],
  },
];

/** Starts SIGNED-GOAL requiring alice's signature; returns its id, call id and the key files. */
export async function startSignedGoal(harness: Harness, common: string[], directory: string) {
  const keygen = async (name: string) => {
    const made = await keel(['keygen', '--out', path.join(directory, `${name}.pem`), '--approver', name]);
    assert.equal(made.code, 0, made.stderr);
    return /public key: (\S+)/.exec(made.stdout)?.[1] ?? '';
  };
  const alicePublic = await keygen('alice');
  await keygen('mallory');
  const workspace = path.join(directory, 'workspace');
  mkdirSync(workspace);
  const started = await keel([
    ...common,
    'run',
    'SIGNED-GOAL: needs a signature',
    '--workspace',
    workspace,
    // With network allowed every run_command is irreversible: it waits for a human.
    '--network',
    '--approval-key',
    `alice=${alicePublic}`,
    '--id',
    `cli-signed-${Date.now()}`,
  ]);
  assert.equal(started.code, 0, started.stderr);
  const workflowId = /goal started: (\S+)/.exec(started.stdout)?.[1] ?? '';
  const handle = harness.client.workflow.getHandle(workflowId);
  const callId = await eventually(
    async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId,
  );
  return { workflowId, callId, handle, workspace };
}
