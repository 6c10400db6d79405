import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_BREAKPOINTS, wireRequest } from '../../src/activities/model/cache-breakpoints';
import type { TranscriptMessage } from '../../src/workflows/common/transcript';
import type { ModelToolDefinition } from '../../src/workflows/tools/harness-tools';

const tools: ModelToolDefinition[] = [
  { name: 'read_file', description: 'read', input_schema: { type: 'object' } },
  { name: 'write_file', description: 'write', input_schema: { type: 'object' } },
];
const on = { enabled: true, ttl: '5m' } as const;

/** A transcript of `turns` tool turns after the task, ending with the newest tool results. */
function transcript(turns: number): TranscriptMessage[] {
  const messages: TranscriptMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'the task' }] }];
  for (let turn = 1; turn <= turns; turn += 1) {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `toolu_${turn}`, name: 'read_file', input: { path: `f${turn}` } }],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `toolu_${turn}`, content: `contents ${turn}` }],
    });
  }
  return messages;
}

/** Every block of the request in cache order (tools, system, messages), as JSON, marks and all. */
function blocks(wire: ReturnType<typeof wireRequest>): string[] {
  const system = typeof wire.system === 'string' ? [{ type: 'text', text: wire.system }] : wire.system;
  return [
    ...wire.tools.map((tool) => JSON.stringify(tool)),
    ...system.map((block) => JSON.stringify(block)),
    ...wire.messages.flatMap((message) =>
      (message.content as object[]).map((block) => JSON.stringify({ role: message.role, block })),
    ),
  ];
}

const unmarked = (json: string): string => json.replace(/,"cache_control":\{[^}]*\}/g, '');

test('four breakpoints: the last tool, the system prompt, the previous request and the newest message', () => {
  const wire = wireRequest({ system: 'be careful', tools, messages: transcript(3) }, on);
  assert.equal(wire.breakpoints, MAX_BREAKPOINTS);
  const marked = blocks(wire)
    .map((json, index) => (json.includes('cache_control') ? index : -1))
    .filter((index) => index >= 0);
  // tools 0-1, system 2, task 3, then (tool_use, tool_result) per turn: 4-5, 6-7, 8-9.
  assert.deepEqual(marked, [1, 2, 7, 9]);
});

test("each turn's request begins with the previous request, up to its newest breakpoint", () => {
  const first = blocks(wireRequest({ system: 's', tools, messages: transcript(4) }, on));
  const second = blocks(wireRequest({ system: 's', tools, messages: transcript(5) }, on));
  const written = first.map((json) => json.includes('cache_control')).lastIndexOf(true);
  // The entry the first request wrote is read back by the second's breakpoint at the same block.
  assert.equal(second[written], first[written]);
  assert.deepEqual(second.slice(0, written + 1).map(unmarked), first.slice(0, written + 1).map(unmarked));
  assert.ok(second[written]?.includes('cache_control'), 'the second request marks the block it reads');
});

test('the turn note goes after the newest breakpoint, so the next turn still reads the prefix', () => {
  const messages = transcript(2);
  const withNote = wireRequest({ system: 's', tools, messages }, on, 'Work on step 2');
  const last = withNote.messages.at(-1)?.content as Array<{
    type: string;
    text?: string;
    cache_control?: unknown;
  }>;
  assert.equal(last.at(-1)?.text, 'Work on step 2');
  assert.equal(last.at(-1)?.cache_control, undefined);
  assert.notEqual(last.at(-2)?.cache_control, undefined);
  // The next turn, without the note, marks the same block the same way.
  const next = blocks(wireRequest({ system: 's', tools, messages: transcript(3) }, on));
  const before = blocks(withNote);
  const noteAt = before.length - 1;
  assert.equal(next[noteAt - 1], before[noteAt - 1]);
});

test('thinking blocks and empty text never carry cache_control; the block before them does', () => {
  const messages: TranscriptMessage[] = [
    { role: 'user', content: [{ type: 'text', text: 'task' }] },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'answer' },
        { type: 'thinking', thinking: 'hmm', signature: 'sig' },
      ],
    },
  ];
  const wire = wireRequest({ system: '', tools: [], messages }, on);
  const answer = wire.messages[1]?.content as Array<{ type: string; cache_control?: unknown }>;
  assert.equal(answer[1]?.cache_control, undefined);
  assert.notEqual(answer[0]?.cache_control, undefined);
  assert.equal(typeof wire.system, 'string', 'an empty system prompt carries no mark');
});

test('caching off: no marks at all; 1h TTL: every mark says so; the transcript is never changed', () => {
  const messages = transcript(2);
  const copy = structuredClone(messages);
  const off = wireRequest({ system: 's', tools, messages }, { enabled: false, ttl: '5m' });
  assert.equal(off.breakpoints, 0);
  assert.ok(!JSON.stringify(off).includes('cache_control'));
  const hour = wireRequest({ system: 's', tools, messages }, { enabled: true, ttl: '1h' });
  assert.equal(JSON.stringify(hour).match(/"ttl":"1h"/g)?.length, MAX_BREAKPOINTS);
  assert.deepEqual(messages, copy);
});
