import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  changeListBytes,
  HELD_AT_ONCE_MAX_BYTES,
  heldAtOnceRefusal,
} from '../../src/workflows/approvals/held-at-once';
import type { WorkspaceEffects } from '../../src/workflows/tools/tool-outcome';

const deleting = (
  paths: number,
  name = (index: number) => `build/${String(index).padStart(6, '0')}.o`,
): WorkspaceEffects => ({
  created: [],
  modified: [],
  deleted: Array.from({ length: paths }, (_, index) => name(index)),
});

test('a change list weighs the UTF-8 bytes of its JSON, as TextEncoder counts them', () => {
  const lists: WorkspaceEffects[] = [
    deleting(3),
    deleting(2, (index) => `données/${index}/é`),
    deleting(2, (index) => `emoji-${index}-😀`),
    deleting(1, () => 'tab\there\u0001'),
    { created: ['a'], modified: ['b'], deleted: [], collapsed: { 'node_modules/': 120 } },
  ];
  for (const list of lists) {
    const json = JSON.stringify([list.created, list.modified, list.deleted, list.collapsed ?? {}]);
    assert.equal(changeListBytes(list), new TextEncoder().encode(json).length, json);
  }
});

test('held lists of one turn together stay within 1 MiB: the list that would pass it is refused, with why', () => {
  const half = deleting(40_000); // about 680 KB of JSON
  assert.ok(changeListBytes(half) > HELD_AT_ONCE_MAX_BYTES / 2);
  assert.equal(heldAtOnceRefusal([], half), undefined, 'the first list of a turn always may');
  assert.equal(heldAtOnceRefusal([deleting(10)], deleting(10)), undefined);
  assert.equal(heldAtOnceRefusal([half], undefined), undefined, 'a call holding nothing always may');
  const refusal = heldAtOnceRefusal([half], half);
  assert.ok(refusal !== undefined);
  assert.match(
    refusal,
    /^Not applied: its changes would wait for a human beside those 1 other call of this turn hold, and together their lists of changes \(\d+ KiB\) pass the 1024 KiB keel holds for approvers at once\. Nothing of it reached the workspace: its changes were discarded\. /,
  );
  assert.match(heldAtOnceRefusal([half, deleting(1)], half) ?? '', /those 2 other calls of this turn/);
});

test('the bound is inclusive: exactly at it may be held, a byte more may not', () => {
  const first = deleting(100);
  const second = deleting(50);
  const total = changeListBytes(first) + changeListBytes(second);
  assert.equal(heldAtOnceRefusal([first], second, total), undefined);
  assert.notEqual(heldAtOnceRefusal([first], second, total - 1), undefined);
});
