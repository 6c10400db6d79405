import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nameCalls } from '../../src/workflows/goal/tool-calls/call-ids';
import type { TranscriptMessage } from '../../src/workflows/common/transcript';

const use = (id: string, name = 'run_command') => ({ type: 'tool_use' as const, id, name, input: {} });
const assistant = (...content: TranscriptMessage['content']): TranscriptMessage => ({
  role: 'assistant',
  content,
});

test('keel names each call in order over the goal, whatever ids the model chose', () => {
  const reply = assistant({ type: 'text', text: 'two calls' }, use('toolu_a'), use('toolu_b'));
  const named = nameCalls({ reply, earlier: [], named: 7 });
  assert.deepEqual(
    named.calls.map((call) => [call.callId, call.toolUse.id]),
    [
      ['call-8', 'toolu_a'],
      ['call-9', 'toolu_b'],
    ],
  );
  assert.equal(named.named, 9);
  assert.equal(named.reply, reply, 'unique ids: the reply is left as the model sent it');
});

test('a tool_use id repeated in one reply, or reused from an earlier turn, is made unique in the transcript', () => {
  const earlier: TranscriptMessage[] = [
    assistant(use('toolu_old')),
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_old', content: 'done' }] },
  ];
  const reply = assistant(use('same'), use('same', 'write_file'), use('toolu_old'), use('same_keel2'));
  const named = nameCalls({ reply, earlier, named: 0 });
  const ids = named.calls.map((call) => call.toolUse.id);
  assert.equal(new Set(ids).size, 4, `all unique: ${ids.join(', ')}`);
  assert.deepEqual(
    named.calls.map((call) => call.callId),
    ['call-1', 'call-2', 'call-3', 'call-4'],
  );
  assert.equal(ids[0], 'same', 'the first use keeps its id');
  assert.notEqual(ids[2], 'toolu_old', 'an id from an earlier turn is not reused');
  assert.notEqual(named.reply, reply, 'a changed reply is a new message object');
  assert.deepEqual(
    named.reply.content.map((block) => (block.type === 'tool_use' ? block.id : block.type)),
    ids,
    'the transcript holds the ids the results will answer',
  );
  assert.equal(
    (reply.content[1] as { id: string }).id,
    'same',
    "the model's message is not changed in place",
  );
});
