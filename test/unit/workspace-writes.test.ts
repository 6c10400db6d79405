import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  MAX_LISTED_WRITES,
  hasLoss,
  noteWrites,
  sourceText,
  workspaceLossLine,
  workspaceLossNote,
  workspaceLossOf,
} from '../../src/workflows/hosts/workspace-writes';
import { describeResult } from '../../src/cli/follow-goal';
import type { GoalResult } from '../../src/workflows/goal/lifecycle/result';
import { emptyCounters, emptyUsage } from '../../src/workflows/goal/lifecycle/state';

const effects = (created: string[], modified: string[] = [], deleted: string[] = []) => ({
  created,
  modified,
  deleted,
});
const call = (summary: string, extra: Partial<Parameters<typeof noteWrites>[1]> = {}) => ({
  summary,
  readOnly: false,
  ok: true,
  effects: undefined,
  ...extra,
});

test('writes gather every changed path once, first change first; reads change nothing', () => {
  let writes = noteWrites(undefined, call('write a', { effects: effects(['a.txt']) }));
  writes = noteWrites(writes, call('read a', { readOnly: true, effects: effects(['ignored']) }));
  writes = noteWrites(writes, call('edit a', { effects: effects([], ['a.txt']) }));
  writes = noteWrites(
    writes,
    call('make', { effects: { ...effects(['b.o'], [], ['old.txt']), collapsed: { '.git/': 12 } } }),
  );
  assert.deepEqual(writes, { paths: ['a.txt', 'b.o', 'old.txt', '.git/'], omitted: 0, unreported: [] });
});

test('a call that changed nothing leaves no trace; a failed one without effects neither', () => {
  assert.equal(noteWrites(undefined, call('same content', { effects: effects([]) })), undefined);
  assert.equal(noteWrites(undefined, call('failed', { ok: false })), undefined);
});

test('a successful call that did not say what it changed is named, once', () => {
  let writes = noteWrites(undefined, call('custom_tool: deploy'));
  writes = noteWrites(writes, call('custom_tool: deploy'));
  assert.deepEqual(writes, { paths: [], omitted: 0, unreported: ['custom_tool: deploy'] });
});

test('paths beyond the cap and counted omissions are counted, not listed', () => {
  const many = Array.from({ length: MAX_LISTED_WRITES + 5 }, (_, index) => `f${index}`);
  const writes = noteWrites(
    undefined,
    call('generate', {
      effects: { ...effects(many), omitted: { created: 3, modified: 0, deleted: 1 } },
    }),
  );
  assert.equal(writes?.paths.length, MAX_LISTED_WRITES);
  assert.equal(writes?.omitted, 5 + 4);
});

test('a recreation names what is lost for the model, the ledger and a human', () => {
  const writes = noteWrites(undefined, call('write a', { effects: effects(['a.txt', 'b.txt']) }));
  const loss = workspaceLossOf(writes, {
    at: '2026-01-01T00:00:00.000Z',
    host: 'h-c',
    source: sourceText({ git: 'file:///repo', ref: 'main' }),
  });
  assert.equal(hasLoss(loss), true);
  assert.equal(
    workspaceLossNote(loss),
    'The workspace was recreated on host h-c from file:///repo@main: these writes of yours are missing: a.txt, b.txt. Make them again if the goal still needs them; do not assume earlier results in the workspace still hold.',
  );
  assert.equal(
    workspaceLossLine(loss),
    'workspace recreated on host h-c from file:///repo@main at 2026-01-01T00:00:00.000Z: 2 writes of the goal lost (a.txt, b.txt)',
  );
  const nothing = workspaceLossOf(undefined, { at: 'now', host: 'h-c', source: sourceText({ git: 'g' }) });
  assert.equal(hasLoss(nothing), false);
  assert.match(workspaceLossNote(nothing), /from g@HEAD; you had not changed it before/);
});

test('keel run --wait prints a lost-writes line for each recreation that lost writes', () => {
  const loss = workspaceLossOf(noteWrites(undefined, call('write a', { effects: effects(['a.txt']) })), {
    at: '2026-01-01T00:00:00.000Z',
    host: 'h-c',
    source: 'file:///repo@main',
  });
  const result: GoalResult = {
    status: 'completed',
    counters: emptyCounters(),
    usage: emptyUsage(),
    tasks: 1,
    stats: {} as GoalResult['stats'],
  };
  assert.equal(describeResult(result).filter((line) => line.startsWith('lost writes')).length, 0);
  assert.deepEqual(
    describeResult({ ...result, workspaceLoss: [loss] }).filter((line) => line.startsWith('lost writes')),
    [
      'lost writes: workspace recreated on host h-c from file:///repo@main at 2026-01-01T00:00:00.000Z: 1 write of the goal lost (a.txt)',
    ],
  );
});
