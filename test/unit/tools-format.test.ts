import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatToolResult } from '../../src/workflows/tools/format-tool-result';

test('a success shows the content only', () => {
  const text = formatToolResult({ ok: true, content: 'hello\n', candidates: ['ignored'], facts: {} });
  assert.equal(text, 'hello');
});

test('a failure lists numbered candidate next actions', () => {
  const text = formatToolResult({
    ok: false,
    content: 'File not found: a.ts',
    candidates: ['list_dir {"path":"."}', 'search {"pattern":"a\\\\.ts"}'],
    facts: {},
  });
  assert.equal(
    text,
    'File not found: a.ts\n\nCandidate next actions:\n1. list_dir {"path":"."}\n2. search {"pattern":"a\\\\.ts"}',
  );
});

test('effects name the first five paths then +N more', () => {
  const created = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
  const text = formatToolResult({
    ok: true,
    content: 'done',
    candidates: [],
    facts: {},
    effects: { created, modified: ['m'], deleted: [] },
  });
  assert.equal(text, 'done\n\nCreated: a, b, c, d, e +2 more\nModified: m');
});

test('present but empty effects say that nothing changed', () => {
  const text = formatToolResult({
    ok: true,
    content: 'done',
    candidates: [],
    facts: {},
    effects: { created: [], modified: [], deleted: [] },
  });
  assert.equal(text, 'done\n\nWorkspace changes: none.');
});
