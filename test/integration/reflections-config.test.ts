import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { taskIdentity } from '../../src/activities/reflection-store/reflection-store';
import { goalWorkflow } from '../../src/workflows/goal/workflow';
import {
  createHarness,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';
import { startWorkerProcess, type WorkerProcess } from '../support/worker-process';

/**
 * Issue 13: `keel reflections` read only its own environment, so notes a worker stored under its
 * own settings were invisible. Both now read reflectionStoreSettings (KEEL_REFLECTION_* and
 * keel.config.yaml); here the real worker process stores a note under a config file and the real
 * CLI finds it through the same file, with none of the worker's variables.
 */

const KEEL = path.resolve(__dirname, '../../bin/keel.js');
const GOAL = 'GOAL-CONFIG-REFLECT: summarise the notes';

let harness: Harness;
let worker: WorkerProcess;
let root: string;
let configFile: string;

function keel(args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    // Only PATH and HOME from this process: no KEEL_REFLECTION_* can leak in from the test runner.
    const env = { PATH: process.env.PATH, HOME: options.env.HOME ?? process.env.HOME, ...options.env };
    execFile(
      process.execPath,
      [KEEL, ...args],
      { cwd: options.cwd, env, timeout: 30_000 },
      (error, stdout, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
    );
  });
}

before(async () => {
  root = tempDirectory('keel-reflections-config-');
  mkdirSync(path.join(root, 'project'));
  mkdirSync(path.join(root, 'elsewhere'));
  configFile = path.join(root, 'project', 'keel.config.yaml');
  writeFileSync(configFile, 'reflectionStore:\n  kind: file\n  directory: ./learned\n');
  harness = await createHarness({
    scenarios: [
      {
        name: 'config-reflect',
        match: 'GOAL-CONFIG-REFLECT',
        turns: [{ text: 'Summary written.' }],
        structured: [
          { tool: 'submit_review', input: { accepted: true, reasons: ['done'] } },
          {
            tool: 'submit_reflection',
            input: {
              refinedDescription: 'Summarise notes.md as bullets.',
              refinedExpectedOutput: 'A bullet list.',
              observations: ['Short notes.'],
              suggestions: ['Read notes.md first.'],
            },
          },
        ],
      },
    ],
  });
  worker = await startWorkerProcess({
    address: await temporalAddress(),
    taskQueue: harness.taskQueue,
    modelBaseUrl: harness.scripted.url,
    journalDirectory: path.join(root, 'journal'),
    env: { KEEL_CONFIG: configFile },
  });
});

after(async () => {
  await worker?.stop();
  await harness?.close();
  await stopOwnServer();
  rmSync(root, { recursive: true, force: true });
});

test("a reflection stored under the worker's keel.config.yaml is found by keel reflections", async () => {
  const workspace = path.join(root, 'workspace');
  mkdirSync(workspace);
  const result = await harness.client.workflow.execute(goalWorkflow, {
    taskQueue: harness.taskQueue,
    workflowId: `config-reflect-${Date.now()}`,
    args: [{ goal: GOAL, successCriteria: ['a summary'], workspace, reflection: { enabled: true } }],
  });
  assert.equal(result.reflection, 'stored (run 1)');

  const home = path.join(root, 'home'); // an empty home: the default store holds nothing
  const viaVariable = await keel(['reflections'], {
    cwd: path.join(root, 'elsewhere'),
    env: { KEEL_CONFIG: configFile, HOME: home },
  });
  assert.equal(viaVariable.code, 0, viaVariable.stderr);
  assert.match(viaVariable.stdout, new RegExp(taskIdentity(GOAL)));
  assert.match(viaVariable.stdout, /Summarise notes\.md as bullets\./);

  const inProject = await keel(['reflections', 'show', GOAL], {
    cwd: path.join(root, 'project'),
    env: { HOME: home },
  });
  assert.equal(inProject.code, 0, inProject.stderr);
  assert.match(inProject.stdout, /suggestions:\n {2}- Read notes\.md first\./);

  const nowhere = await keel(['reflections'], { cwd: path.join(root, 'elsewhere'), env: { HOME: home } });
  assert.equal(nowhere.code, 0, nowhere.stderr);
  assert.equal(
    nowhere.stdout.trim(),
    `no reflections stored: looked in file store ${path.join(home, '.keel', 'reflections')} ` +
      `(the default: KEEL_REFLECTION_DIR is unset and there is no keel.config.yaml in ${path.join(root, 'elsewhere')} (nor KEEL_CONFIG))`,
  );
});
