import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { goalResult } from '../../src/client/goal-client';
import { goalWorkflow } from '../../src/workflows/goal/goal-workflow';
import { ledgerQuery } from '../../src/workflows/goal/messages';
import type { GoalInput } from '../../src/workflows/goal/goal-input';
import type { ScenarioInput } from '../../src/scripted-model/scenario';
import { createHarness, stopOwnServer, tempDirectory, type Harness } from '../support/temporal';

// Three scenarios of the discipline eval (npm run eval:discipline) on the real dev server, with the
// scripted model: a looper, a repeater (also with planning on), and a good long task of the same
// length that no guard may touch.

const readMissing = { name: 'read_file', input: { path: 'missing.txt' } };
const readNotes = { name: 'read_file', input: { path: 'notes.md' } };
const MODULES = 8;

/** A long legitimate task: read a module, edit it, now and then look around; every turn says where it stands. */
function goodLongTask(): ScenarioInput['turns'] {
  const turns: ScenarioInput['turns'] = [
    {
      text: 'Plan: list the modules, then rename old() in each.',
      toolCalls: [{ name: 'list_dir', input: { path: 'src' } }],
    },
  ];
  for (let index = 1; index <= MODULES; index++) {
    const file = `src/module-${index}.ts`;
    turns.push({
      text: `The plan still matches the task; module ${index - 1} is confirmed done. Next I will read ${file}.`,
      toolCalls: [{ name: 'read_file', input: { path: file } }],
    });
    turns.push({
      text: `Still on task: found old() in ${file}; next output: the edit.`,
      toolCalls: [{ name: 'edit_file', input: { path: file, oldString: 'old()', newString: 'renamed()' } }],
    });
  }
  turns.push({ text: 'Renamed old() to renamed() in every module.' });
  return turns;
}

let harness: Harness;

before(async () => {
  harness = await createHarness({
    scenarios: [
      {
        name: 'looper',
        match: 'GOAL-LOOPER',
        turns: [
          ...Array.from({ length: 12 }, () => ({ toolCalls: [readMissing] })),
          { text: 'never reached' },
        ],
      },
      {
        name: 'repeater',
        match: 'GOAL-REPEATER',
        turns: [...Array.from({ length: 12 }, () => ({ toolCalls: [readNotes] })), { text: 'never reached' }],
        structured: [
          {
            tool: 'submit_plan',
            input: {
              strategySummary: 'read the notes, then summarize them',
              steps: [
                {
                  toolName: 'read_file',
                  toolInput: { path: 'notes.md' },
                  rationale: 'see the notes',
                  expectedEffects: [],
                },
                {
                  toolName: 'write_file',
                  toolInput: { path: 'summary.md', content: 's' },
                  rationale: 'the summary',
                  expectedEffects: [],
                },
              ],
            },
          },
        ],
      },
      { name: 'good-long', match: 'GOAL-GOOD-LONG', turns: goodLongTask() },
    ],
  });
});

after(async () => {
  await harness.close();
  await stopOwnServer();
});

function workspace(): string {
  const directory = tempDirectory('keel-guards-');
  writeFileSync(path.join(directory, 'notes.md'), 'remember the milk\n');
  return directory;
}

async function run(goal: string, directory: string, extra: Partial<GoalInput> = {}) {
  return harness.withWorker(async () => {
    const workflowId = `${goal.toLowerCase()}-${Date.now()}`;
    const handle = await harness.client.workflow.start(goalWorkflow, {
      taskQueue: harness.taskQueue,
      workflowId,
      args: [{ goal: `${goal}: a discipline scenario`, workspace: directory, ...extra }],
    });
    // A stuck goal fails its workflow (GoalStuck) with the result in the details.
    const result = await goalResult(handle);
    const ledger = await harness.client.workflow.getHandle(workflowId).query(ledgerQuery, {});
    return { result, ledger };
  });
}

const guardEvents = (ledger: Array<{ kind: string; data: Record<string, unknown> }>) =>
  ledger.filter((event) => event.kind.startsWith('guard.'));

/** The last user message the scripted model received before answering one turn of a scenario. */
const lastMessageBefore = (scenario: string, turnIndex: number) =>
  JSON.stringify(
    harness.scripted.requests
      .filter((r) => r.scenario === scenario && r.turnIndex === turnIndex)
      .at(-1)
      ?.body.messages?.at(-1),
  );

test('looper: the same failing read is named after its 3rd call and the goal is stuck at the 5th', async () => {
  const { result, ledger } = await run('GOAL-LOOPER', workspace());
  assert.equal(result.status, 'stuck');
  assert.match(
    result.reason ?? '',
    /stopped by a guard: loop: read_file: missing\.txt made 5 times in the last 10 tool calls/,
  );
  assert.equal(result.counters.toolCalls, 5, 'stopped within 10 calls, not at the 100-call limit');
  const prompt = lastMessageBefore('looper', 3);
  assert.match(prompt, /\[Loop detected\] You have made the same call 3 times/);
  assert.match(prompt, /failing the same way each time/);
  assert.match(prompt, /Candidate next actions|list_dir/, 'the tool’s own next actions are named');
  const events = guardEvents(ledger);
  assert.deepEqual(
    events.map((event) => [
      event.kind,
      event.data.guard,
      event.data.action,
      event.data.atToolCall,
      event.data.repeats,
    ]),
    [
      ['guard.warned', 'loop', 'prompt', 3, 3],
      ['guard.stopped', 'loop', 'stop', 5, 5],
    ],
  );
  assert.equal(ledger.at(-1)?.kind, 'goal.stuck');
});

test('repeater: the same successful read is stopped at the 5th call', async () => {
  const { result, ledger } = await run('GOAL-REPEATER', workspace());
  assert.equal(result.status, 'stuck');
  assert.equal(result.counters.toolCalls, 5);
  assert.match(
    lastMessageBefore('repeater', 3),
    /with the same result each time[\s\S]*Use the result you already have/,
  );
  assert.deepEqual(
    guardEvents(ledger).map((event) => `${event.kind}@${String(event.data.atToolCall)}`),
    ['guard.warned@3', 'guard.stopped@5'],
  );
});

test('repeater with planning on: the loop fails the step and the plan backtracks instead of stopping', async () => {
  const { result, ledger } = await run('GOAL-REPEATER', workspace(), {
    planning: { enabled: true, maxBacktrackAttempts: 2 },
  });
  const kinds = ledger.map((event) => event.kind);
  const firstStop = kinds.indexOf('guard.stopped');
  assert.ok(firstStop > 0);
  assert.equal(kinds[firstStop + 1], 'plan.failed');
  assert.match(String(ledger[firstStop + 1]?.summary), /stopped by a guard: loop: read_file: notes\.md/);
  assert.ok(kinds.slice(firstStop).includes('plan.backtracked'), kinds.join(' '));
  assert.equal(ledger[firstStop]?.data.action, 'fail-step');
  // the new attempt starts a fresh window: the next stop comes 5 calls later, and no attempt is left
  assert.equal(kinds.filter((kind) => kind === 'guard.stopped').length, 2);
  assert.equal(result.status, 'failed');
  assert.equal(result.counters.toolCalls, 10);
});

test('a good long task of the same length: distinct reads and edits, no guard decision at all', async () => {
  const directory = workspace();
  const src = path.join(directory, 'src');
  mkdirSync(src);
  for (let index = 1; index <= MODULES; index++) {
    writeFileSync(path.join(src, `module-${index}.ts`), `export const value = old();\n`);
  }
  const { result, ledger } = await run('GOAL-GOOD-LONG', directory);
  assert.equal(result.status, 'completed', result.reason);
  assert.equal(result.counters.toolCalls, 1 + 2 * MODULES);
  assert.deepEqual(guardEvents(ledger), []);
  assert.match(readFileSync(path.join(src, 'module-8.ts'), 'utf8'), /renamed\(\)/);
});
