import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callSummary } from '../../src/workflows/tools/call-summary';

test('a path leads, bare; other fields follow as key=value in the order given', () => {
  assert.equal(callSummary('read_file', { path: 'src/app.ts' }), 'read_file: src/app.ts');
  assert.equal(
    callSummary('read_file', { offset: 40, path: 'src/app.ts', limit: 20 }),
    'read_file: src/app.ts offset=40 limit=20',
  );
  assert.equal(
    callSummary('search', { pattern: 'a b', path: 'src', caseInsensitive: true }),
    'search: src pattern="a b" caseInsensitive=true',
  );
});

test('the hypothesis is left out, and a call without other input is its tool name', () => {
  assert.equal(callSummary('list_dir', { hypothesis: 'I expect three files' }), 'list_dir');
  assert.equal(callSummary('list_dir', {}), 'list_dir');
  assert.equal(callSummary('list_dir', undefined), 'list_dir');
  assert.equal(callSummary('list_dir', 'not an object'), 'list_dir');
});

test('a path that is not text is shown like any other field', () => {
  assert.equal(callSummary('read_file', { path: 3 }), 'read_file: path=3');
});

test('long values and long labels are cut to one short line', () => {
  const content = `${'line\n'.repeat(100)}end`;
  const label = callSummary('write_file', { path: 'notes.txt', content });
  assert.match(label, /^write_file: notes\.txt content="line\\nline\\n.*…$/);
  assert.ok(label.length <= 'write_file: '.length + 120, label);
  const value = label.slice(label.indexOf('content='));
  assert.ok(value.length <= 'content='.length + 60, value);
  assert.ok(callSummary('search', { pattern: 'x'.repeat(500) }).length <= 'search: '.length + 120);
});
