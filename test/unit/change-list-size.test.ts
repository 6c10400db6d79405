import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CHANGE_LIST_MAX_BYTES,
  changeListBytes,
  changeListOversize,
  listedForTheResult,
} from '../../src/activities/tools/layers/change-list-size';
import type { WorkspaceEffects } from '../../src/workflows/tools/tool-outcome';
import { formatToolResult } from '../../src/workflows/tools/format-tool-result';

/** Issue 43, item 6: a held list is listed whole, so its bytes are bounded instead. */

const list = (paths: string[]): WorkspaceEffects => ({ created: paths, modified: [], deleted: [] });

test('the bytes are those of the JSON the list travels in: quotes, escapes and UTF-8 counted', () => {
  assert.equal(changeListBytes(list([])), JSON.stringify([[], [], [], {}]).length);
  assert.equal(changeListBytes(list(['é'])) - changeListBytes(list(['e'])), 1, 'é is two bytes');
  assert.equal(changeListBytes(list(['\u0001'])) - changeListBytes(list(['a'])), 5, '\\u0001 is six');
  assert.equal(
    changeListBytes({ created: [], modified: ['m'], deleted: ['d'], collapsed: { 'x/': 1 } }),
    JSON.stringify([[], ['m'], ['d'], { 'x/': 1 }]).length,
  );
});

test('a list at the bound is held; one byte over is discarded whole, with one clear reason', () => {
  const at = list(['a'.repeat(100)]);
  const bytes = changeListBytes(at);
  assert.equal(changeListOversize(at, bytes), undefined);
  const over = changeListOversize(at, bytes - 1);
  assert.equal(
    over,
    `its list of changes (1 paths, ${bytes} bytes) is longer than the ${bytes - 1} bytes a call may hold: too many changes for a human to review, so make them in smaller steps`,
  );
});

test('the default bound: 20,000 short paths fit, 20,000 paths of 100 bytes do not', () => {
  assert.equal(CHANGE_LIST_MAX_BYTES, 512 * 1024);
  const short = list(Array.from({ length: 20_000 }, (_, index) => `f${index}.txt`));
  assert.equal(changeListOversize(short), undefined);
  const long = {
    created: [],
    modified: [],
    deleted: Array.from({ length: 20_000 }, (_, index) => `${'d'.repeat(90)}/${index}`),
  };
  assert.match(
    changeListOversize(long) ?? '',
    /^its list of changes \(20000 paths, \d+ bytes\) is longer than the 524288 bytes/,
  );
});

test('the model still reads a few paths of a long list: the tool result names 5 of each kind and counts the rest', () => {
  const deleted = Array.from({ length: 3000 }, (_, index) => `file-${index}.txt`);
  const text = formatToolResult({
    ok: true,
    content: 'removed',
    candidates: [],
    facts: {},
    effects: { created: [], modified: [], deleted },
  });
  assert.equal(
    text,
    'removed\n\nDeleted: file-0.txt, file-1.txt, file-2.txt, file-3.txt, file-4.txt +2995 more',
  );
});

test("a call's result keeps the first paths of each kind and counts the rest; a short list is left alone", () => {
  const paths = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}`);
  const short = { created: paths('c', 3), modified: [], deleted: paths('d', 2) };
  assert.equal(listedForTheResult(short, 3), short);
  const long = {
    created: paths('c', 5),
    modified: paths('m', 1),
    deleted: paths('d', 4),
    omitted: { created: 1, modified: 0, deleted: 0 },
  };
  const listed = listedForTheResult(long, 3);
  assert.deepEqual(listed.created, ['c0', 'c1', 'c2']);
  assert.deepEqual(listed.modified, ['m0']);
  assert.deepEqual(listed.deleted, ['d0', 'd1', 'd2']);
  assert.deepEqual(listed.omitted, { created: 3, modified: 0, deleted: 1 });
  assert.deepEqual(long.created, paths('c', 5), 'the held list is left whole');
});
