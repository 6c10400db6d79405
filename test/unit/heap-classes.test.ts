import { test } from 'node:test';
import assert from 'node:assert/strict';
import { heapClassesByName } from '../../scripts/memory/heap-classes';

test("a heap snapshot's objects are grouped by class, shallow sizes added, largest first", () => {
  const snapshot = {
    snapshot: {
      meta: {
        node_fields: ['type', 'name', 'id', 'self_size', 'edge_count'],
        node_types: [['hidden', 'array', 'string', 'object', 'code', 'closure']] as [string[]],
      },
    },
    // type, name, id, self_size, edge_count
    nodes: [3, 0, 1, 40, 0, 3, 0, 2, 60, 0, 2, 1, 3, 500, 0, 5, 2, 4, 32, 0, 3, 3, 5, 16, 0],
    strings: ['Internals', 'a long string', 'safeParse', 'Set'],
  };
  assert.deepEqual(heapClassesByName(snapshot), [
    { name: '(string)', count: 1, bytes: 500 },
    { name: 'Internals', count: 2, bytes: 100 },
    { name: 'closure safeParse', count: 1, bytes: 32 },
    { name: 'Set', count: 1, bytes: 16 },
  ]);
});
