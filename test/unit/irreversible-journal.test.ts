import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  createIrreversibleJournal,
  describeUnknownAttempt,
} from '../../src/activities/tools/irreversible-journal';
import type { ToolOutcome } from '../../src/workflows/tools/tool-outcome';
import { makeWorkspace } from './tools-test-helpers';

// The journal's rules for at-most-once irreversible calls, on a real directory: a marker per
// idempotency key, claimed once; what a finish and a reported-unknown add to it; its identity.
// (tools-execute.test.ts has how executeTool decides with it.)

const STARTED = '2026-01-02T03:04:05.000Z';
const FINISHED = '2026-01-02T03:04:09.000Z';

function setup() {
  // A directory that does not exist yet: the journal makes it (and its parents) on first use.
  const directory = path.join(makeWorkspace('keel-journal-'), 'state', 'journal');
  const times = [STARTED, FINISHED, '2026-01-02T03:05:00.000Z'];
  const now = () => new Date(times.shift() ?? 'invalid');
  return { directory, journal: createIrreversibleJournal({ directory, now }) };
}

const call = { idempotencyKey: 'goal-1/call-3', toolName: 'run_command', summary: 'deploy' };

function read(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

function outcome(overrides: Partial<ToolOutcome> = {}): ToolOutcome {
  return { ok: true, content: 'deployed', candidates: [], facts: {}, ...overrides };
}

test('a claim writes the marker "<sha256 of the key>.json" with the call and when it started', async () => {
  const { directory, journal } = setup();
  const claim = await journal.claim(call);
  const name = `${createHash('sha256').update('goal-1/call-3').digest('hex')}.json`;
  assert.deepEqual(claim, { claimed: true, markerPath: path.join(directory, name) });
  assert.deepEqual(read(claim.markerPath), { ...call, startedAt: STARTED });
  assert.deepEqual(readdirSync(directory), [name]);
});

test('a second claim of the same key is refused with the earlier record; another key is claimed', async () => {
  const { journal } = setup();
  const first = await journal.claim(call);
  const second = await journal.claim({ ...call, summary: 'deploy again' });
  assert.deepEqual(second, {
    claimed: false,
    markerPath: first.markerPath,
    earlier: { ...call, startedAt: STARTED },
  });
  assert.equal((await journal.claim({ ...call, idempotencyKey: 'goal-1/call-4' })).claimed, true);
});

test('a marker that cannot be read (cut off mid-write, or not a record) is an earlier claim with no record', async () => {
  const { journal } = setup();
  const { markerPath } = await journal.claim(call);
  for (const content of ['{"idempotencyKey', JSON.stringify({ idempotencyKey: 'goal-1/call-3' })]) {
    writeFileSync(markerPath, content);
    assert.deepEqual(await journal.claim(call), { claimed: false, markerPath, earlier: undefined });
    assert.deepEqual(await journal.peek('goal-1/call-3'), { earlier: undefined });
  }
});

test('peek says nothing for a key never claimed, and the record for one claimed, without claiming', async () => {
  const { directory, journal } = setup();
  assert.equal(await journal.peek('goal-1/call-3'), undefined);
  await journal.claim(call);
  assert.deepEqual(await journal.peek('goal-1/call-3'), { earlier: { ...call, startedAt: STARTED } });
  assert.equal(await journal.peek('goal-1/call-9'), undefined);
  assert.equal(readdirSync(directory).length, 1);
});

test('a finish with an outcome records when, ok, the outcome and its exit code, leaving no temporary file', async () => {
  const { directory, journal } = setup();
  const { markerPath } = await journal.claim(call);
  const failed = outcome({ ok: false, content: 'exit 3', facts: { exitCode: 3 } });
  await journal.recordFinish(markerPath, { outcome: failed });
  assert.deepEqual(read(markerPath), {
    ...call,
    startedAt: STARTED,
    finishedAt: FINISHED,
    ok: false,
    outcome: failed,
    exitCode: 3,
  });
  assert.deepEqual(readdirSync(directory), [path.basename(markerPath)]);
});

test('a finish without an exit code records none; a finish with an error records the error and no outcome', async () => {
  const first = setup();
  const claimed = await first.journal.claim(call);
  await first.journal.recordFinish(claimed.markerPath, { outcome: outcome() });
  assert.deepEqual(read(claimed.markerPath), {
    ...call,
    startedAt: STARTED,
    finishedAt: FINISHED,
    ok: true,
    outcome: outcome(),
  });
  const second = setup();
  const failed = await second.journal.claim(call);
  await second.journal.recordFinish(failed.markerPath, { error: 'deploy aborted' });
  assert.deepEqual(read(failed.markerPath), {
    ...call,
    startedAt: STARTED,
    finishedAt: FINISHED,
    error: 'deploy aborted',
  });
});

test('a later attempt that reports the call unknown adds when, keeping the rest of the record', async () => {
  const { journal } = setup();
  const { markerPath } = await journal.claim(call);
  await journal.recordReportedUnknown(markerPath);
  assert.deepEqual(read(markerPath), { ...call, startedAt: STARTED, reportedUnknownAt: FINISHED });
});

test('a marker that cannot be read is left exactly as it is by a finish or a report', async () => {
  const { journal } = setup();
  const { markerPath } = await journal.claim(call);
  writeFileSync(markerPath, '{"idempotencyKey');
  await journal.recordFinish(markerPath, { outcome: outcome() });
  await journal.recordReportedUnknown(markerPath);
  assert.equal(readFileSync(markerPath, 'utf8'), '{"idempotencyKey');
});

test("a journal's id is made once per directory: the same for every journal there, another elsewhere", async () => {
  const { directory, journal } = setup();
  const id = await journal.id();
  assert.match(id, /^[0-9a-f-]{36}$/);
  assert.equal(await journal.id(), id);
  assert.equal(await createIrreversibleJournal({ directory }).id(), id);
  assert.equal(readFileSync(path.join(directory, 'journal-id'), 'utf8'), id);
  assert.deepEqual(readdirSync(directory), ['journal-id'], 'no candidate file is left behind');
  assert.notEqual(await setup().journal.id(), id);
});

test("a journal's id file with a trailing newline (written by hand or another tool) is read without it", async () => {
  const { directory, journal } = setup();
  await journal.claim(call); // makes the directory
  writeFileSync(path.join(directory, 'journal-id'), 'host-a-journal\n');
  assert.equal(await journal.id(), 'host-a-journal');
});

test('without a clock of its own, a claim is stamped with the current time', async () => {
  const directory = path.join(makeWorkspace('keel-journal-'), 'journal');
  const before = Date.now();
  const claim = await createIrreversibleJournal({ directory }).claim(call);
  const { startedAt } = read(claim.markerPath) as { startedAt: string };
  assert.ok(Date.parse(startedAt) >= before && Date.parse(startedAt) <= Date.now(), startedAt);
});

test('two journals on a fresh directory that race for the id agree on one', async () => {
  const { directory } = setup();
  const ids = await Promise.all(
    Array.from({ length: 8 }, () => createIrreversibleJournal({ directory }).id()),
  );
  assert.equal(new Set(ids).size, 1);
  assert.deepEqual(readdirSync(directory), ['journal-id']);
});

test('a claim leaves no descriptor open: 40 claims and 40 refused repeats grow the open files by fewer than 5', async () => {
  const journal = createIrreversibleJournal({ directory: setup().directory });
  const before = readdirSync('/proc/self/fd').length;
  for (let index = 0; index < 40; index += 1) {
    await journal.claim({ ...call, idempotencyKey: `goal-1/call-${index}` });
    await journal.claim({ ...call, idempotencyKey: `goal-1/call-${index}` });
  }
  // A margin for descriptors the runtime opens or closes meanwhile; a leak is one per claim.
  const grown = readdirSync('/proc/self/fd').length - before;
  assert.ok(grown < 5, `${grown} more descriptors open after 40 claims`);
});

test('why an earlier attempt has no known outcome: nothing recorded, failed midway, or never finished', () => {
  assert.equal(describeUnknownAttempt(undefined), 'an earlier attempt began it but recorded nothing more');
  assert.equal(
    describeUnknownAttempt({ ...call, startedAt: STARTED, error: 'deploy aborted' }),
    `an earlier attempt began it at ${STARTED} and it failed midway (deploy aborted)`,
  );
  assert.equal(
    describeUnknownAttempt({ ...call, startedAt: STARTED }),
    `an earlier attempt began it at ${STARTED} and never recorded finishing (the worker probably stopped mid-call)`,
  );
});
