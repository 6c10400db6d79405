import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Context, asyncLocalStorage, type Info } from '@temporalio/activity';
import { ApplicationFailure, CancelledFailure, noopMetricMeter } from '@temporalio/common';
import {
  ToolActivityFailureType,
  createToolActivities,
  type ExecuteToolInput,
} from '../../src/activities/tools/tool-activities';
import { z } from 'zod';
import { defineTool } from '../../src/activities/tools/define-tool';
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
    // Irreversible calls reach a worker only once a human approved them (tested below).
    approved: overrides.reversibility === 'irreversible',
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

test('every outcome names the host and the worker process that ran it, when the worker has them', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'a.txt': 'hello\n' });
  const call: ExecuteToolInput = {
    toolName: 'read_file',
    input: { path: 'a.txt' },
    workspace,
    callId: 'call-1',
    idempotencyKey: 'goal-1/call-1',
    reversibility: 'read-only',
  };
  const registry = createToolRegistry({});
  const stamped = createToolActivities({ registry, hostId: 'h1', instanceId: 'ab12cd34' });
  const outcome = await stamped.executeTool(call);
  assert.equal(outcome.host, 'h1');
  assert.equal(outcome.instance, 'ab12cd34');
  const failed = await stamped.executeTool({ ...call, toolName: 'launch_rocket' });
  assert.deepEqual([failed.ok, failed.host, failed.instance], [false, 'h1', 'ab12cd34']);
  const plain = await createToolActivities({ registry }).executeTool(call);
  assert.deepEqual([plain.host, plain.instance], [undefined, undefined]);
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
  assert.match(outcome.content, /"a\.txt" is a file, not a directory, so "a\.txt\/child\.txt" cannot exist/);
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

test('an irreversible call runs at most once: a retry after it finished gets its recorded result', async () => {
  const { workspace, journalDirectory, executeTool, call } = setup();
  const append = call({
    toolName: 'run_command',
    input: { command: 'echo once >> side-effects.txt' },
    reversibility: 'irreversible',
  });
  const first = await executeTool(append);
  assert.equal(first.ok, true);
  const second = await executeTool(append);
  assert.equal(second.ok, true);
  assert.match(
    second.content,
    /^\(Not run again: an earlier attempt .* finished at 2026-01-02T03:04:0\d\.000Z/,
  );
  assert.ok(second.content.endsWith(first.content));
  assert.equal(readFileSync(path.join(workspace, 'side-effects.txt'), 'utf8'), 'once\n');
  const markers = readdirSync(journalDirectory).filter((name) => name.endsWith('.json'));
  assert.equal(markers.length, 1);
  const record = JSON.parse(readFileSync(path.join(journalDirectory, markers[0] ?? ''), 'utf8')) as {
    startedAt: string;
    finishedAt: string;
    exitCode: number;
  };
  assert.equal(record.exitCode, 0);
  assert.ok(record.startedAt < record.finishedAt);

  const another = await executeTool({ ...append, callId: 'call-2', idempotencyKey: 'goal-1/call-2' });
  assert.equal(another.ok, true);
  assert.equal(readFileSync(path.join(workspace, 'side-effects.txt'), 'utf8'), 'once\nonce\n');
});

test('the journal applies when the command itself is irreversible, whatever the caller said', async () => {
  const { workspace, executeTool, call } = setup();
  // With network allowed run_command is irreversible, whatever the command.
  const append = call({
    toolName: 'run_command',
    input: { command: 'echo x >> f.txt' },
    reversibility: 'read-only',
    approved: true,
    sandbox: { network: true },
  });
  await executeTool(append);
  const second = await executeTool(append);
  assert.match(second.content, /Not run again/);
  assert.equal(readFileSync(path.join(workspace, 'f.txt'), 'utf8'), 'x\n');
});

test('an irreversible call without a human approval is not run, whoever decided its tier', async () => {
  const { workspace, executeTool, call } = setup();
  for (const [reversibility, sandbox] of [
    ['irreversible', { network: false }],
    ['read-only', { network: true }], // the tool itself says irreversible (network)
  ] as const) {
    const outcome = await executeTool(
      call({
        toolName: 'run_command',
        input: { command: 'echo x >> f.txt' },
        reversibility,
        sandbox,
        approved: false,
      }),
    );
    assert.equal(outcome.ok, false);
    assert.match(outcome.escalation?.reason ?? '', /runs only once a human approves it/);
    assert.equal(existsSync(path.join(workspace, 'f.txt')), false, 'nothing ran');
  }
});

/** The failure a retry throws for a call that began: typed, non-retryable, saying it began. */
function isOutcomeUnknown(pattern: RegExp, began: true | 'unknown' = true) {
  return (error: unknown): boolean => {
    assert.ok(error instanceof ApplicationFailure, String(error));
    assert.equal(error.type, ToolActivityFailureType.OutcomeUnknown);
    assert.equal(error.nonRetryable, true);
    assert.match(error.message, pattern);
    assert.equal((error.details?.[0] as { began: unknown }).began, began);
    return true;
  };
}

test('a call that began but never finished is not run again: OutcomeUnknown, and the journal notes it', async () => {
  const { workspace, journalDirectory, executeTool, call, now } = setup();
  const journal = createIrreversibleJournal({ directory: journalDirectory, now });
  const claim = await journal.claim({
    idempotencyKey: 'goal-1/call-9',
    toolName: 'run_command',
    summary: 'x',
  });
  assert.equal(claim.claimed, true);
  await assert.rejects(
    executeTool(
      call({
        toolName: 'run_command',
        input: { command: 'touch ran.txt' },
        idempotencyKey: 'goal-1/call-9',
        reversibility: 'irreversible',
      }),
    ),
    isOutcomeUnknown(/began it at 2026-01-02T03:04:06\.000Z and never recorded finishing/),
  );
  assert.equal(existsSync(path.join(workspace, 'ran.txt')), false);
  const record = JSON.parse(readFileSync(claim.markerPath, 'utf8')) as { reportedUnknownAt?: string };
  assert.ok(record.reportedUnknownAt, 'the marker says a retry found it cut off');
});

test('a call whose journal has no marker never began, and runs', async () => {
  const { workspace, executeTool, call } = setup();
  // As after a worker that died between picking up the attempt and beginning the call.
  const outcome = await executeTool(
    call({
      toolName: 'run_command',
      input: { command: 'echo ran >> ran.txt' },
      idempotencyKey: 'goal-1/call-10',
      reversibility: 'irreversible',
    }),
  );
  assert.equal(outcome.ok, true);
  assert.equal(readFileSync(path.join(workspace, 'ran.txt'), 'utf8'), 'ran\n');
});

test('an unreadable marker still refuses the repeat', async () => {
  const { journalDirectory, executeTool, call, now } = setup();
  const journal = createIrreversibleJournal({ directory: journalDirectory, now });
  const claim = await journal.claim({ idempotencyKey: 'k', toolName: 'run_command', summary: 'x' });
  writeFileSync(claim.markerPath, '{"trunc');
  await assert.rejects(
    executeTool(
      call({
        toolName: 'run_command',
        input: { command: 'touch x' },
        idempotencyKey: 'k',
        reversibility: 'irreversible',
      }),
    ),
    isOutcomeUnknown(/began it but recorded nothing more/),
  );
});

test('a tool that throws after beginning is a failure outcome, recorded, and a retry does not run it again', async () => {
  const { journalDirectory, workspace, call } = setup();
  let charges = 0;
  const registry = createToolRegistry({
    tools: [
      defineTool({
        name: 'charge_card',
        description: 'Charges a card',
        input: z.object({ amount: z.number() }),
        reversibility: 'irreversible',
        execute: () => {
          charges += 1;
          return Promise.reject(new Error('gateway hung up'));
        },
      }),
    ],
  });
  const { executeTool } = createToolActivities({ registry, journalDirectory });
  const charge = {
    ...call({}),
    toolName: 'charge_card',
    input: { amount: 5 },
    reversibility: 'irreversible' as const,
    approved: true,
    workspace,
  };
  const first = await executeTool(charge);
  assert.equal(first.ok, false);
  assert.match(first.content, /gateway hung up/);
  const retry = await executeTool(charge);
  assert.equal(retry.ok, false);
  assert.match(retry.content, /Not run again/);
  assert.equal(charges, 1);
  const marker = readdirSync(journalDirectory).find((name) => name.endsWith('.json')) ?? '';
  assert.match(readFileSync(path.join(journalDirectory, marker), 'utf8'), /"ok":false/);
});

test('an attempt after one that used another journal is OutcomeUnknown without running', async () => {
  const { workspace, executeTool, call } = setup();
  const attempt = () =>
    executeTool(
      call({
        toolName: 'run_command',
        input: { command: 'echo ran >> ran.txt' },
        idempotencyKey: 'goal-1/call-11',
        reversibility: 'irreversible',
      }),
    );
  await assert.rejects(
    runInActivity(
      { heartbeatDetails: { journalId: 'journal-of-another-host', details: undefined } },
      attempt,
    ),
    isOutcomeUnknown(/journal \(journal-of-another-host\), which this worker cannot read/, 'unknown'),
  );
  assert.equal(existsSync(path.join(workspace, 'ran.txt')), false);
});

test('a moved call that provably never started on the host it left runs once on the new one', async () => {
  const { workspace, executeTool, call } = setup();
  const moved = call({
    toolName: 'run_command',
    input: { command: 'echo ran >> ran.txt' },
    idempotencyKey: 'goal-1/call-12',
    reversibility: 'irreversible',
    earlierAttempts: [{ host: 'h-a', mayHaveStarted: false }],
  });
  const first = await executeTool(moved);
  assert.equal(first.ok, true, first.content);
  // A repeat (a lost completion) finds the claim and returns its recorded result.
  const again = await executeTool(moved);
  assert.match(again.content, /Not run again/);
  assert.equal(readFileSync(path.join(workspace, 'ran.txt'), 'utf8'), 'ran\n');
});

test('a moved call that may have begun where this journal cannot see is OutcomeUnknown without running', async () => {
  const { workspace, executeTool, call } = setup();
  await assert.rejects(
    executeTool(
      call({
        toolName: 'run_command',
        input: { command: 'echo ran >> ran.txt' },
        idempotencyKey: 'goal-1/call-13',
        reversibility: 'irreversible',
        earlierAttempts: [{ host: 'h-a', mayHaveStarted: true }],
      }),
    ),
    isOutcomeUnknown(/may have begun on host h-a, with a journal it never named/, 'unknown'),
  );
  assert.equal(existsSync(path.join(workspace, 'ran.txt')), false);
});

test('a moved call that may have begun is decided by the journal when the old host used the same one', async () => {
  const { workspace, journalDirectory, executeTool, call, now } = setup();
  const journalId = await createIrreversibleJournal({ directory: journalDirectory, now }).id();
  const moved = (key: string, earlierJournal: string) =>
    call({
      toolName: 'run_command',
      input: { command: 'echo ran >> ran.txt' },
      idempotencyKey: key,
      reversibility: 'irreversible',
      earlierAttempts: [{ host: 'h-a', mayHaveStarted: true, journalId: earlierJournal }],
    });
  // The same journal has no marker: it never began, so it runs.
  assert.equal((await executeTool(moved('goal-1/call-14', journalId))).ok, true);
  assert.equal(readFileSync(path.join(workspace, 'ran.txt'), 'utf8'), 'ran\n');
  // Another journal, but this one holds the finished call: its recorded result, not a second run.
  const recorded = await executeTool(moved('goal-1/call-14', 'journal-of-the-old-host'));
  assert.match(recorded.content, /Not run again/);
  assert.equal(readFileSync(path.join(workspace, 'ran.txt'), 'utf8'), 'ran\n');
});

test('an irreversible call names its journal in its heartbeats before it begins', async () => {
  const { journalDirectory, executeTool, call } = setup();
  const beats: unknown[] = [];
  await runInActivity({ heartbeat: (details) => beats.push(details) }, () =>
    executeTool(
      call({ toolName: 'run_command', input: { command: 'echo x >> f.txt' }, reversibility: 'irreversible' }),
    ),
  );
  const journalId = readFileSync(path.join(journalDirectory, 'journal-id'), 'utf8');
  assert.deepEqual(beats[0], { journalId, details: undefined });
});

/** A minimal activity context, as the worker would set it, to test the activity wiring. */
function runInActivity<T>(
  options: { signal?: AbortSignal; heartbeat?: (details?: unknown) => void; heartbeatDetails?: unknown },
  body: () => Promise<T>,
): Promise<T> {
  const context = new Context(
    { activityType: 'executeTool', heartbeatDetails: options.heartbeatDetails } as Info,
    new Promise<never>(() => {}),
    options.signal ?? new AbortController().signal,
    options.heartbeat ?? (() => {}),
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

test('an irreversible custom tool that rejects when cancelled ends as cancelled, not as outcome unknown, its error journaled', async () => {
  const { workspace, journalDirectory, call } = setup();
  const registry = createToolRegistry({
    tools: [
      defineTool({
        name: 'deploy',
        description: 'Waits until cancelled, then rejects',
        input: z.object({}),
        reversibility: 'irreversible',
        execute: (_input, context) =>
          new Promise((_resolve, reject) => {
            const abort = () => reject(new Error('deploy aborted'));
            if (context.signal.aborted) abort();
            else context.signal.addEventListener('abort', abort);
          }),
      }),
    ],
  });
  const { executeTool } = createToolActivities({ registry, journalDirectory });
  const controller = new AbortController();
  setTimeout(() => controller.abort(new CancelledFailure('CANCELLED')), 50);
  await assert.rejects(
    runInActivity({ signal: controller.signal }, () =>
      executeTool({ ...call({ reversibility: 'irreversible' }), toolName: 'deploy', input: {}, workspace }),
    ),
    (error: unknown) => {
      assert.ok(!(error instanceof ApplicationFailure), `not ${String(error)}`);
      assert.match(String(error), /deploy aborted/);
      return true;
    },
  );
  const journaled = readdirSync(journalDirectory)
    .filter((name) => name !== 'journal-id')
    .map((name) => readFileSync(path.join(journalDirectory, name), 'utf8'))
    .join('\n');
  assert.match(journaled, /"error":"deploy aborted"/);
});

test('a tool result over the size keel records is cut to its head and tail, images over budget left out', async () => {
  const { journalDirectory, workspace, call } = setup();
  const registry = createToolRegistry({
    tools: [
      defineTool({
        name: 'dump',
        description: 'Returns a lot',
        input: z.object({}),
        reversibility: 'read-only',
        execute: () =>
          Promise.resolve({
            ok: true,
            content: `BEGIN${'m'.repeat(3_000_000)}END`,
            images: [
              { mediaType: 'image/png' as const, data: 'a'.repeat(600_000) },
              { mediaType: 'image/png' as const, data: 'b'.repeat(600_000) },
            ],
          }),
      }),
    ],
  });
  const { executeTool } = createToolActivities({ registry, journalDirectory });
  const outcome = await executeTool({ ...call({}), toolName: 'dump', input: {}, workspace });
  assert.ok(outcome.content.length < 201_000);
  assert.match(
    outcome.content,
    /^BEGINm+\n\[… 2800008 characters omitted by keel …\]\nm+END\n\[1 image\(s\) left out/,
  );
  assert.equal(outcome.images?.length, 1);
  assert.equal(outcome.facts.truncated, true);
});
