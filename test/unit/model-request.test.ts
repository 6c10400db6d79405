import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nextModelRequest, storedModelRequest } from '../../src/workflows/goal/model-request';
import { appendUserBlocks, userText, type TranscriptMessage } from '../../src/workflows/common/transcript';
import { fitToBudget } from '../../src/workflows/common/context-budget';
import type { ModelToolDefinition } from '../../src/workflows/tools/harness-tools';

const tools: ModelToolDefinition[] = [
  { name: 'read_file', description: 'Reads a file', input_schema: { type: 'object', properties: {} } },
];
const task = userText('TASK: read the notes');
const answer = (id: string): TranscriptMessage => ({
  role: 'assistant',
  content: [{ type: 'tool_use', id, name: 'read_file', input: { path: 'notes.md' } }],
});
const results = (id: string, text = 'the notes'): TranscriptMessage['content'] => [
  { type: 'tool_result', tool_use_id: id, content: text },
];

test('the first request goes whole', () => {
  const parts = nextModelRequest(undefined, { system: 'S', tools, messages: [task] });
  assert.deepEqual(parts, { system: 'S', tools, messages: [task] });
});

test('a request that extends the stored one sends only its new messages, and system and tools only when changed', () => {
  const sent = { system: 'S', tools, messages: [task] };
  const reply = answer('c1');
  const stored = storedModelRequest('k1', sent, reply);
  const transcript = appendUserBlocks([task, reply], results('c1'));
  const same = nextModelRequest(stored, { system: 'S', tools, messages: transcript });
  assert.deepEqual(same, { continues: { request: 'k1' }, messages: transcript.slice(2) });

  const changed = nextModelRequest(stored, {
    system: 'S with the next plan step',
    tools: [...tools, { ...tools[0]!, name: 'list_dir' }],
    messages: transcript,
  });
  assert.equal(changed.continues?.request, 'k1');
  assert.equal(changed.system, 'S with the next plan step');
  assert.equal(changed.tools?.length, 2);
});

test('a transcript that no longer starts with the stored messages (trimmed, consolidated) goes whole', () => {
  const reply = answer('c1');
  const stored = storedModelRequest('k1', { system: 'S', tools, messages: [task] }, reply);
  // Equal content is not enough: a trimmed transcript is made of new messages.
  const rebuilt = [
    structuredClone(task),
    structuredClone(reply),
    { role: 'user' as const, content: results('c1') },
  ];
  assert.equal(nextModelRequest(stored, { system: 'S', tools, messages: rebuilt }).continues, undefined);
  const big = appendUserBlocks([task, reply], results('c1', 'x'.repeat(5_000)));
  const trimmed = fitToBudget(big, { maxChars: 2_000, keepLatestMessages: 0 }, { headroom: true }).transcript;
  assert.equal(nextModelRequest(stored, { system: 'S', tools, messages: trimmed }).continues, undefined);
});

test('nothing new after the stored request means the request goes whole (it must end with a user turn)', () => {
  const reply = answer('c1');
  const stored = storedModelRequest('k1', { system: 'S', tools, messages: [task] }, reply);
  assert.equal(
    nextModelRequest(stored, { system: 'S', tools, messages: [task, reply] }).continues,
    undefined,
  );
});
