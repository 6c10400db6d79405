import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Context, asyncLocalStorage, type Info } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure, noopMetricMeter } from '@temporalio/common';
import {
  ToolActivityFailureType,
  createToolActivities,
  type ExecuteToolInput,
} from '../../src/activities/tools/tool-activities';
import { createToolRegistry } from '../../src/worker';
import { createIrreversibleJournal } from '../../src/activities/tools/irreversible-journal';
import { makeWorkspace, writeFiles } from './tools-test-helpers';

function setup() {
  const workspace = makeWorkspace();
  const journalDirectory = path.join(makeWorkspace('keel-journal-'), 'journal');
  let clock = Date.parse('2026-01-02T03:04:05.000Z');
  const now = () => new Date((clock += 1000));
  const { executeTool } = createToolActivities({ registry: createToolRegistry({}), journalDirectory, now });
  const call = (overrides: Partial<ExecuteToolInput>): ExecuteToolInput => ({
    toolName: 'read_file',
    input: {},
    workspace,
    callId: 'call-1',
    idempotencyKey: 'goal-1/call-1',
    reversibility: 'read-only',
    ...overrides,
  });
  return { workspace, journalDirectory, executeTool, call, now };
}

test('executeTool validates the input and runs the tool', async () => {
  const { workspace, executeTool, call } = setup();
  writeFiles(workspace, { 'a.txt': 'hello\n' });
  const outcome = await executeTool(call({ input: { path: 'a.txt', hypothesis: 'I expect hello' } }));
  assert.equal(outcome.ok, true);
  assert.equal(outcome.content, '1\thello');
});

test('invalid tool input is a failure outcome naming the field, not an exception', async () => {
  const { executeTool, call } = setup();
  const outcome = await executeTool(call({ input: { path: 42 } }));
  assert.equal(outcome.ok, false);
  assert.match(outcome.content, /Invalid input for read_file: path: /);
  assert.equal(outcome.candidates.length, 2);
  assert.match(outcome.candidates[1] ?? '', /path \(required\), offset, limit, hypothesis/);
});

test('an unknown tool is a failure outcome listing the tools', async () => {
  const { executeTool, call } = setup();
  const outcome = await executeTool(call({ toolName: 'launch_rocket' }));
  assert.equal(outcome.ok, false);
  assert.match(
    outcome.candidates[0] ?? '',
    /read_file, list_dir, search, write_file, edit_file, run_command/,
  );
});

test('a file-system error inside a tool becomes a failure outcome', async () => {
  const { workspace, executeTool, call } = setup();
  writeFiles(workspace, { 'a.txt': 'x' });
  const outcome = await executeTool(
    call({
      toolName: 'write_file',
      input: { path: 'a.txt/child.txt', content: 'x' },
      reversibility: 'mutating',
    }),
  );
  assert.equal(outcome.ok, false);
  assert.match(outcome.content, /write_file failed on "a\.txt\/child\.txt"/);
  assert.ok(outcome.candidates.length >= 2);
});

test('a missing workspace throws a non-retryable WorkspaceMissing failure', async () => {
  const { workspace, executeTool, call } = setup();
  await assert.rejects(
    executeTool(call({ workspace: path.join(workspace, 'gone'), input: { path: 'a.txt' } })),
    (error: unknown) => {
      assert.ok(error instanceof ApplicationFailure);
      assert.equal(error.type, ToolActivityFailureType.WorkspaceMissing);
      assert.equal(error.nonRetryable, true);
      return true;
    },
  );
});

test('a malformed activity input throws a non-retryable failure', async () => {
  const { executeTool, call } = setup();
  await assert.rejects(
    executeTool({ ...call({}), reversibility: 'sometimes' } as unknown as ExecuteToolInput),
    (error: unknown) =>
      error instanceof ApplicationFailure && error.type === ToolActivityFailureType.InvalidToolActivityInput,
  );
});

test('an irreversible call runs at most once per idempotency key', async () => {
  const { workspace, journalDirectory, executeTool, call } = setup();
  const append = call({
    toolName: 'run_command',
    input: { command: 'echo once >> side-effects.txt' },
    reversibility: 'irreversible',
  });
  const first = await executeTool(append);
  assert.equal(first.ok, true);
  const second = await executeTool(append);
  assert.equal(second.ok, false);
  assert.match(second.content, /was not run again/);
  assert.match(second.content, /started at 2026-01-02T03:04:06\.000Z and finished at .* with exit code 0/);
  assert.equal(second.candidates.length, 3);
  assert.match(second.candidates.join('\n'), /Ask the user/);
  assert.equal(readFileSync(path.join(workspace, 'side-effects.txt'), 'utf8'), 'once\n');
  assert.equal(readdirSync(journalDirectory).length, 1);

  const another = await executeTool({ ...append, callId: 'call-2', idempotencyKey: 'goal-1/call-2' });
  assert.equal(another.ok, true);
  assert.equal(readFileSync(path.join(workspace, 'side-effects.txt'), 'utf8'), 'once\nonce\n');
});

test('the journal applies when the command itself is irreversible, whatever the caller said', async () => {
  const { workspace, executeTool, call } = setup();
  const append = call({
    toolName: 'run_command',
    input: { command: 'echo x >> f.txt' },
    reversibility: 'read-only',
  });
  await executeTool(append);
  const second = await executeTool(append);
  assert.equal(second.ok, false);
  assert.equal(readFileSync(path.join(workspace, 'f.txt'), 'utf8'), 'x\n');
});

test('an attempt that started but never finished is reported as unknown', async () => {
  const { journalDirectory, executeTool, call, now } = setup();
  const journal = createIrreversibleJournal({ directory: journalDirectory, now });
  const claim = await journal.claim({
    idempotencyKey: 'goal-1/call-9',
    toolName: 'run_command',
    summary: 'x',
  });
  assert.equal(claim.claimed, true);
  const outcome = await executeTool(
    call({
      toolName: 'run_command',
      input: { command: 'rm -rf build' },
      idempotencyKey: 'goal-1/call-9',
      reversibility: 'irreversible',
    }),
  );
  assert.equal(outcome.ok, false);
  assert.match(outcome.content, /never recorded finishing .* outcome is unknown/);
});

test('an unreadable marker still refuses the repeat', async () => {
  const { journalDirectory, executeTool, call, now } = setup();
  const journal = createIrreversibleJournal({ directory: journalDirectory, now });
  const claim = await journal.claim({ idempotencyKey: 'k', toolName: 'run_command', summary: 'x' });
  writeFileSync(claim.markerPath, '{"trunc');
  const outcome = await executeTool(
    call({
      toolName: 'run_command',
      input: { command: 'touch x' },
      idempotencyKey: 'k',
      reversibility: 'irreversible',
    }),
  );
  assert.equal(outcome.ok, false);
  assert.match(outcome.content, /recorded nothing more: its outcome is unknown/);
});

/** A minimal activity context, as the worker would set it, to test the activity wiring. */
function runInActivity<T>(
  options: { signal: AbortSignal; heartbeat: () => void },
  body: () => Promise<T>,
): Promise<T> {
  const context = new Context(
    { activityType: 'executeTool' } as Info,
    new Promise<never>(() => {}),
    options.signal,
    options.heartbeat,
    undefined,
    console,
    noopMetricMeter,
    undefined as never,
  );
  return asyncLocalStorage.run(context, body);
}

test('inside an activity, heartbeats flow and cancellation kills the command and ends as cancelled', async () => {
  const { executeTool, call } = setup();
  const controller = new AbortController();
  let beats = 0;
  setTimeout(() => controller.abort(new CancelledFailure('CANCELLED')), 300);
  const started = Date.now();
  await assert.rejects(
    runInActivity({ signal: controller.signal, heartbeat: () => (beats += 1) }, () =>
      executeTool(
        call({ toolName: 'run_command', input: { command: 'sleep 30' }, reversibility: 'irreversible' }),
      ),
    ),
    CancelledFailure,
  );
  assert.ok(Date.now() - started < 10_000);
  assert.ok(beats >= 1);
});
