import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from '../../src/scripted-model/scripted-messages-server';
import { parseScenario } from '../../src/scripted-model/scenario';

// Thinking blocks are signed by the server; sent back, they must be the blocks it wrote, and a
// tool-use loop with thinking enabled must send back the thinking its last answer began with.

let server: ScriptedMessagesServer;
let client: Anthropic;

before(async () => {
  server = await startScriptedMessagesServer({
    scenarios: [
      {
        name: 'thinks',
        match: 'THINK',
        turns: [
          {
            thinking: 'The user wants the file read. I will call read_file on notes.txt first.',
            text: 'Reading it.',
            toolCalls: [{ name: 'read_file', input: { path: 'notes.txt' } }],
          },
          { thinking: 'The file says hello; that answers it.', text: 'It says hello.' },
        ],
      },
      {
        name: 'redacted',
        match: 'REDACTED',
        turns: [
          { redactedThinking: true, toolCalls: [{ name: 'read_file', input: { path: 'notes.txt' } }] },
          { text: 'done' },
        ],
      },
    ],
  });
  client = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
});

after(() => server.close());

const thinking = { type: 'enabled' as const, budget_tokens: 1024 };
const base = { model: 'claude-sonnet-4-6', max_tokens: 4096, thinking };

type Block = Anthropic.ContentBlockParam;

function continuation(opening: string, answer: Block[], results: Block[]): Anthropic.MessageParam[] {
  return [
    { role: 'user', content: opening },
    { role: 'assistant', content: answer },
    { role: 'user', content: results },
  ];
}

async function refusal(request: Promise<unknown>): Promise<string> {
  const error = await request.then(
    () => undefined,
    (failure: unknown) => failure,
  );
  assert.ok(error instanceof Anthropic.BadRequestError, 'refused with 400');
  return error.message;
}

test('the answer begins with a signed thinking block, and sent back unaltered it is accepted', async () => {
  const first = await client.messages.create({ ...base, messages: [{ role: 'user', content: 'THINK' }] });
  const [block] = first.content;
  assert.equal(block?.type, 'thinking');
  assert.ok(block?.type === 'thinking' && block.signature.length > 20, 'a signature');
  const toolUse = first.content.find((entry) => entry.type === 'tool_use');
  assert.ok(toolUse?.type === 'tool_use');

  const second = await client.messages.create({
    ...base,
    messages: continuation('THINK', first.content, [
      { type: 'tool_result', tool_use_id: toolUse.id, content: 'hello' },
    ]),
  });
  assert.equal(second.content[0]?.type, 'thinking');
  assert.equal(second.content.at(-1)?.type, 'text');

  // The stream carries the same thinking and signature (thinking_delta, then signature_delta).
  const streamed = await client.messages
    .stream({ ...base, messages: [{ role: 'user', content: 'THINK' }] })
    .finalMessage();
  assert.deepStrictEqual(streamed.content, first.content);
});

test('a thinking block altered by one character, or with another server’s signature, is refused', async () => {
  const first = await client.messages.create({ ...base, messages: [{ role: 'user', content: 'THINK' }] });
  const [block, ...rest] = first.content;
  assert.ok(block?.type === 'thinking');
  const toolUse = rest.find((entry) => entry.type === 'tool_use');
  assert.ok(toolUse?.type === 'tool_use');
  const results: Block[] = [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'hello' }];

  const altered = { ...block, thinking: `${block.thinking}!` };
  const message = await refusal(
    client.messages.create({
      ...base,
      messages: continuation('THINK', [altered, ...rest] as Block[], results),
    }),
  );
  assert.match(message, /messages\.1\.content\.0: Invalid `signature` in `thinking` block/);
  assert.equal(server.requests.at(-1)?.status, 400);

  const other = await startScriptedMessagesServer({ scenarios: [{ name: 'other', turns: [{ text: 'x' }] }] });
  try {
    const otherClient = new Anthropic({ apiKey: 'k', baseURL: other.url, maxRetries: 0 });
    const elsewhere = await refusal(
      otherClient.messages.create({
        ...base,
        messages: continuation('THINK', first.content, results),
      }),
    );
    assert.match(elsewhere, /Invalid `signature` in `thinking` block/);
  } finally {
    await other.close();
  }
});

test('in a tool-use loop with thinking on, the last assistant message must begin with its thinking', async () => {
  const first = await client.messages.create({ ...base, messages: [{ role: 'user', content: 'THINK' }] });
  const toolUse = first.content.find((entry) => entry.type === 'tool_use');
  assert.ok(toolUse?.type === 'tool_use');
  const results: Block[] = [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'hello' }];
  const withoutThinking = first.content.filter((entry) => entry.type !== 'thinking') as Block[];
  const message = await refusal(
    client.messages.create({ ...base, messages: continuation('THINK', withoutThinking, results) }),
  );
  assert.match(
    message,
    /messages\.1\.content\.0\.type: Expected `thinking` or `redacted_thinking`, but found `text`\. When `thinking` is enabled, a final `assistant` message must start with a thinking block/,
  );
  // Without thinking enabled the same history is fine.
  const { thinking: _off, ...withoutSettings } = base;
  await client.messages.create({
    ...withoutSettings,
    messages: continuation('THINK', withoutThinking, results),
  });
});

test('thinking blocks of earlier turns may be left out, as the API allows', async () => {
  const first = await client.messages.create({ ...base, messages: [{ role: 'user', content: 'THINK' }] });
  const toolUse = first.content.find((entry) => entry.type === 'tool_use');
  assert.ok(toolUse?.type === 'tool_use');
  const second = await client.messages.create({
    ...base,
    messages: continuation('THINK', first.content, [
      { type: 'tool_result', tool_use_id: toolUse.id, content: 'hello' },
    ]),
  });
  // A new user turn after a finished answer: the earlier assistant turns' thinking is optional.
  await client.messages.create({
    ...base,
    messages: [
      { role: 'user', content: 'THINK' },
      { role: 'assistant', content: first.content.filter((entry) => entry.type !== 'thinking') as Block[] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'hello' }] },
      { role: 'assistant', content: second.content.filter((entry) => entry.type !== 'thinking') as Block[] },
      { role: 'user', content: 'thanks, and now?' },
    ],
  });
});

test('redacted thinking: opaque data the server issued is accepted back, other data is refused', async () => {
  const first = await client.messages.create({ ...base, messages: [{ role: 'user', content: 'REDACTED' }] });
  const [block, toolUse] = first.content;
  assert.ok(block?.type === 'redacted_thinking' && block.data.length > 0);
  assert.ok(toolUse?.type === 'tool_use');
  const results: Block[] = [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'hello' }];
  await client.messages.create({
    ...base,
    messages: continuation('REDACTED', first.content, results),
  });
  const forged = {
    type: 'redacted_thinking' as const,
    data: Buffer.from('opaque data this server never issued, long enough to look real').toString('base64'),
  };
  const message = await refusal(
    client.messages.create({ ...base, messages: continuation('REDACTED', [forged, toolUse], results) }),
  );
  assert.match(message, /messages\.1\.content\.0: Invalid `data` in `redacted_thinking` block/);
});

test('without thinking enabled, the answer has no thinking block, as the API answers', async () => {
  const { thinking: _off, ...withoutSettings } = base;
  const answer = await client.messages.create({
    ...withoutSettings,
    messages: [{ role: 'user', content: 'THINK' }],
  });
  assert.deepEqual(
    answer.content.map((block) => block.type),
    ['text', 'tool_use'],
  );
});

test('a scripted turn thinks or redacts its thinking, not both', () => {
  assert.throws(
    () => parseScenario({ name: 'x', turns: [{ thinking: 'hmm', redactedThinking: true }] }),
    /thinking or with redacted thinking/,
  );
});
