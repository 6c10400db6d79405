import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  carriedModelRequest,
  nextModelRequest,
  resumedModelRequest,
  storedModelRequest,
} from '../../src/workflows/goal/model-turn/request';
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

test('a cut of the context sends only the messages it changed; the rest are ranges of the stored request', () => {
  const big = (id: string) => results(id, `${id}: ${'x'.repeat(5_000)}`);
  let transcript: TranscriptMessage[] = [task];
  for (const id of ['c1', 'c2', 'c3', 'c4'])
    transcript = appendUserBlocks([...transcript, answer(id)], big(id));
  const lastAnswer = answer('c5');
  const stored = storedModelRequest('k1', { system: 'S', tools, messages: transcript }, lastAnswer);
  const next = appendUserBlocks([...transcript, lastAnswer], big('c5'));
  const fitted = fitToBudget(next, { maxChars: 20_000, keepLatestMessages: 4 });
  assert.ok(fitted.elidedBlocks > 0);
  const parts = nextModelRequest(stored, { system: 'S', tools, messages: fitted.transcript });
  assert.equal(parts.continues?.request, 'k1');
  const segments = parts.continues?.segments;
  assert.ok(segments, 'not a plain append: some stored messages changed');
  // Rebuilt from the stored request and what was sent, it is exactly the fitted transcript.
  let sent = 0;
  const rebuilt = segments.flatMap((segment) =>
    segment === null ? [parts.messages[sent++]] : stored.messages.slice(segment[0], segment[1]),
  );
  assert.deepEqual(rebuilt, fitted.transcript);
  assert.equal(sent, parts.messages.length);
  // What travels is the new results and the changed messages, which the cut made small.
  const changed = parts.messages.slice(0, -1);
  assert.ok(changed.length > 0 && changed.every((message) => JSON.stringify(message).length < 400));
  assert.equal(parts.messages.at(-1), fitted.transcript.at(-1));
});

test('a transcript that shares nothing with the stored request goes whole', () => {
  const reply = answer('c1');
  const stored = storedModelRequest('k1', { system: 'S', tools, messages: [task] }, reply);
  // Equal content is not enough: a rebuilt transcript (continue-as-new) is made of new messages.
  const rebuilt = [
    structuredClone(task),
    structuredClone(reply),
    { role: 'user' as const, content: results('c1') },
  ];
  assert.equal(nextModelRequest(stored, { system: 'S', tools, messages: rebuilt }).continues, undefined);
});

test('nothing new after the stored request means the request goes whole (it must end with a user turn)', () => {
  const reply = answer('c1');
  const stored = storedModelRequest('k1', { system: 'S', tools, messages: [task] }, reply);
  assert.equal(
    nextModelRequest(stored, { system: 'S', tools, messages: [task, reply] }).continues,
    undefined,
  );
});

test('a stored request is carried to a new run only while the transcript still starts with it', () => {
  const reply = answer('c1');
  const stored = storedModelRequest('k1', { system: 'S', tools, messages: [task] }, reply);
  const transcript = appendUserBlocks([task, reply], results('c1'));
  const carried = carriedModelRequest(stored, transcript);
  assert.deepEqual(carried, { key: 'k1', messageCount: 2, system: 'S', toolsJson: JSON.stringify(tools) });
  // The new run has its own message objects (the carried state); the request extends from them.
  const newRun = structuredClone(transcript);
  const resumed = resumedModelRequest(carried, newRun);
  assert.deepEqual(nextModelRequest(resumed, { system: 'S', tools, messages: newRun }), {
    continues: { request: 'k1' },
    messages: newRun.slice(2),
  });
  // A transcript that changed under the stored request (consolidated, cut) carries nothing.
  assert.equal(carriedModelRequest(stored, [structuredClone(task), reply]), undefined);
  assert.equal(carriedModelRequest(undefined, transcript), undefined);
  assert.equal(resumedModelRequest({ ...carried, messageCount: 9 }, newRun), undefined);
});
