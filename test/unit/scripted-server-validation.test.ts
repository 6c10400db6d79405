import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from '../../src/scripted-model/scripted-messages-server';

// The loopback server refuses what the Messages API refuses, with a 400 invalid_request_error
// worded as the API words it, and records the refusal. Each rule is shown refused and, beside it,
// its valid counterpart accepted.

let server: ScriptedMessagesServer;
let client: Anthropic;

before(async () => {
  server = await startScriptedMessagesServer({
    scenarios: [{ name: 'any', turns: [{ text: 'fine' }, { text: 'fine again' }, { text: 'and again' }] }],
  });
  client = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
});

after(() => server.close());

type Body = Record<string, unknown>;

const base = (extra: Body = {}): Body => ({
  model: 'claude-sonnet-4-6',
  max_tokens: 1024,
  messages: [{ role: 'user', content: 'hello' }],
  ...extra,
});

const toolUse = (id: string, name = 'read_file') => ({ type: 'tool_use', id, name, input: { path: 'a' } });
const toolResult = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: 'contents' });

/** Sends the body as the SDK would (raw: some bodies here are ones its types would not allow). */
async function send(body: Body): Promise<{ status: number; type?: string; message?: string }> {
  try {
    await client.post('/v1/messages', { body });
    return { status: 200 };
  } catch (error) {
    if (!(error instanceof Anthropic.APIError)) throw error;
    const detail = (error.error as { error?: { type?: string; message?: string } } | undefined)?.error;
    const status = Number(error.status);
    return { status, type: detail?.type, message: detail?.message };
  }
}

async function refused(body: Body, wording: RegExp | string): Promise<void> {
  const before = server.requests.length;
  const answer = await send(body);
  assert.equal(answer.status, 400, `refused: ${JSON.stringify(body).slice(0, 200)}`);
  assert.equal(answer.type, 'invalid_request_error');
  if (typeof wording === 'string') assert.equal(answer.message, wording);
  else assert.match(answer.message ?? '', wording);
  const record = server.requests[before];
  assert.equal(record?.status, 400, 'the refusal is recorded');
  assert.equal(record?.rejection, answer.message);
}

async function accepted(body: Body): Promise<void> {
  const answer = await send(body);
  assert.equal(answer.status, 200, `accepted, got ${answer.message}`);
}

test('max_tokens is required, a positive integer, and within the model’s output limit', async () => {
  const { max_tokens: _omitted, ...withoutMaxTokens } = base();
  await refused(withoutMaxTokens, 'max_tokens: Field required');
  await refused(base({ max_tokens: 0 }), 'max_tokens: Input should be greater than or equal to 1');
  await refused(base({ max_tokens: 1.5 }), 'max_tokens: Input should be a valid integer');
  await refused(
    base({ max_tokens: 200_000 }),
    'max_tokens: 200000 > 128000, which is the maximum allowed number of output tokens for claude-sonnet-4-6',
  );
  await refused(
    base({ model: 'claude-haiku-4-5', max_tokens: 64_001 }),
    'max_tokens: 64001 > 64000, which is the maximum allowed number of output tokens for claude-haiku-4-5',
  );
  await accepted(base({ max_tokens: 128_000 }));
  await accepted(base({ model: 'some-model-keel-does-not-know', max_tokens: 500_000 }));
});

test('messages is non-empty and every message but a final assistant one has content', async () => {
  await refused(base({ messages: [] }), 'messages: at least one message is required');
  await refused(
    base({ messages: [{ role: 'user', content: [] }] }),
    /^messages\.0: all messages must have non-empty content/,
  );
  await refused(
    base({ messages: [{ role: 'user', content: [{ type: 'text', text: '' }] }] }),
    'messages: text content blocks must be non-empty',
  );
  await refused(
    base({ messages: [{ role: 'system', content: 'hi' }] }),
    /^messages\.0\.role: Input should be/,
  );
  await accepted(base({ messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] }));
});

test('a final assistant message (a prefill) does not end in whitespace', async () => {
  const prefill = (text: string) => ({
    messages: [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: [{ type: 'text', text }] },
    ],
  });
  await refused(
    base(prefill('The answer is ')),
    'messages: final assistant content cannot end with trailing whitespace',
  );
  await refused(
    base(prefill('The answer is\n')),
    'messages: final assistant content cannot end with trailing whitespace',
  );
  await accepted(base(prefill('The answer is')));
});

test('every tool_use is answered by a tool_result in the next message, unless it ends the request', async () => {
  const asked = { role: 'assistant', content: [toolUse('toolu_a'), toolUse('toolu_b')] };
  await refused(
    base({
      messages: [{ role: 'user', content: 'go' }, asked, { role: 'user', content: [toolResult('toolu_a')] }],
    }),
    'messages.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_b. ' +
      'Each `tool_use` block must have a corresponding `tool_result` block in the next message.',
  );
  await refused(
    base({ messages: [{ role: 'user', content: 'go' }, asked, { role: 'user', content: 'no results' }] }),
    /^messages\.1: `tool_use` ids were found without `tool_result` blocks immediately after: toolu_a, toolu_b\./,
  );
  await accepted(
    base({
      messages: [
        { role: 'user', content: 'go' },
        asked,
        { role: 'user', content: [toolResult('toolu_a'), toolResult('toolu_b')] },
      ],
    }),
  );
  // The request's last message may ask for tools (an answer being continued).
  await accepted(base({ messages: [{ role: 'user', content: 'go' }, asked] }));
});

test('every tool_result answers a tool_use of the message right before it', async () => {
  await refused(
    base({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [toolUse('toolu_a')] },
        { role: 'user', content: [toolResult('toolu_a'), toolResult('toolu_elsewhere')] },
      ],
    }),
    'messages.2.content.1: unexpected `tool_use_id` found in `tool_result` blocks: toolu_elsewhere. ' +
      'Each `tool_result` block must have a corresponding `tool_use` block in the previous message.',
  );
  await refused(
    base({ messages: [{ role: 'user', content: [toolResult('toolu_a')] }] }),
    /^messages\.0\.content\.0: unexpected `tool_use_id` found in `tool_result` blocks: toolu_a\./,
  );
});

test('tool_result blocks come before any other block in their user message', async () => {
  const messages = (content: unknown[]) => [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: [toolUse('toolu_a')] },
    { role: 'user', content },
  ];
  await refused(
    base({ messages: messages([{ type: 'text', text: 'results:' }, toolResult('toolu_a')]) }),
    /^messages\.2\.content\.1: `tool_result` blocks must come first/,
  );
  await accepted(base({ messages: messages([toolResult('toolu_a'), { type: 'text', text: 'and go on' }]) }));
});

test('tool_use ids are unique across the request', async () => {
  await refused(
    base({
      messages: [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [toolUse('toolu_same'), toolUse('toolu_same', 'list_dir')] },
        { role: 'user', content: [toolResult('toolu_same')] },
      ],
    }),
    'messages.1.content.1: `tool_use` ids must be unique',
  );
});

test('thinking: a budget of at least 1,024 tokens and below max_tokens', async () => {
  const thinking = (budget: number) => ({ thinking: { type: 'enabled', budget_tokens: budget } });
  await refused(
    base(thinking(1000)),
    'thinking.enabled.budget_tokens: Input should be greater than or equal to 1024',
  );
  await refused(
    base({ ...thinking(2048), max_tokens: 2048 }),
    /^`max_tokens` must be greater than `thinking\.budget_tokens`/,
  );
  await accepted(base({ ...thinking(1024), max_tokens: 2048 }));
});

test('thinking: no temperature but 1, no top_k, no forced tool use', async () => {
  const thinking = { thinking: { type: 'enabled', budget_tokens: 1024 }, max_tokens: 4096 };
  await refused(
    base({ ...thinking, temperature: 0.2 }),
    /^`temperature` may only be set to 1 when thinking is enabled or in adaptive mode/,
  );
  await refused(
    base({ ...thinking, top_k: 5 }),
    '`top_k` must be unset when thinking is enabled or in adaptive mode',
  );
  const tools = [{ name: 'plan', input_schema: { type: 'object' } }];
  await refused(
    base({ ...thinking, tools, tool_choice: { type: 'any' } }),
    'Thinking may not be enabled when tool_choice forces tool use.',
  );
  await refused(
    base({ ...thinking, tools, tool_choice: { type: 'tool', name: 'plan' } }),
    'Thinking may not be enabled when tool_choice forces tool use.',
  );
  await accepted(base({ ...thinking, temperature: 1, tools, tool_choice: { type: 'auto' } }));
  // Without thinking, all of it is fine.
  await accepted(base({ temperature: 0.2, top_k: 5 }));
});

test('cache_control: at most four breakpoints, across tools, system and messages', async () => {
  const marked = (text: string) => ({ type: 'text', text, cache_control: { type: 'ephemeral' } });
  const tools = [{ name: 'plan', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' } }];
  await refused(
    base({
      tools,
      system: [marked('one'), marked('two')],
      messages: [{ role: 'user', content: [marked('three'), marked('four')] }],
    }),
    'A maximum of 4 blocks with cache_control may be provided. Found 5.',
  );
  await accepted(
    base({
      tools,
      system: [marked('one'), marked('two')],
      messages: [{ role: 'user', content: [marked('three')] }],
    }),
  );
});

test('cache_control: not on thinking or empty text blocks, a known ttl, and 1h never after 5m', async () => {
  await refused(
    base({ system: [{ type: 'text', text: '', cache_control: { type: 'ephemeral' } }] }),
    'system.0: cache_control cannot be set for empty text blocks',
  );
  await refused(
    base({ system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral', ttl: '10m' } }] }),
    "system.0.cache_control.ttl: Input should be '5m' or '1h'",
  );
  await refused(
    base({
      system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral' } }],
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'q', cache_control: { type: 'ephemeral', ttl: '1h' } }],
        },
      ],
    }),
    "messages.0.content.0.cache_control.ttl: a ttl='1h' cache_control block must not come after a ttl='5m' cache_control block. " +
      'Note that blocks are processed in the following order: `tools`, `system`, `messages`.',
  );
  await accepted(
    base({
      system: [{ type: 'text', text: 's', cache_control: { type: 'ephemeral', ttl: '1h' } }],
      messages: [
        {
          role: 'user',
          content: [{ type: 'text', text: 'q', cache_control: { type: 'ephemeral', ttl: '5m' } }],
        },
      ],
    }),
  );
});

test('a request over the context window is refused: prompt is too long', async () => {
  const small = await startScriptedMessagesServer({
    scenarios: [{ name: 'any', turns: [{ text: 'fine' }] }],
    contextWindowTokens: 100,
  });
  try {
    const smallClient = new Anthropic({ apiKey: 'k', baseURL: small.url, maxRetries: 0 });
    const error = await smallClient.messages
      .create({
        model: 'claude-sonnet-4-6',
        max_tokens: 10,
        messages: [{ role: 'user', content: 'x'.repeat(1000) }],
      })
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    assert.ok(error instanceof Anthropic.BadRequestError);
    assert.match(error.message, /prompt is too long: \d+ tokens > 100 maximum/);
    await smallClient.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 10,
      messages: [{ role: 'user', content: 'x' }],
    });
  } finally {
    await small.close();
  }
});

test('strict: false turns validation off', async () => {
  const lax = await startScriptedMessagesServer({
    scenarios: [{ name: 'any', turns: [{ text: 'fine' }] }],
    strict: false,
  });
  try {
    const laxClient = new Anthropic({ apiKey: 'k', baseURL: lax.url, maxRetries: 0 });
    await laxClient.post('/v1/messages', {
      body: { model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'hi' }] },
    });
    assert.equal(lax.requests[0]?.status, 200);
  } finally {
    await lax.close();
  }
});

test('a refused request takes no scripted attempt: the turn after it is still the first', async () => {
  const fresh = await startScriptedMessagesServer({
    scenarios: [{ name: 'once', turns: [{ text: 'answered', failures: [{ status: 529 }] }] }],
  });
  try {
    const freshClient = new Anthropic({ apiKey: 'k', baseURL: fresh.url, maxRetries: 0 });
    await freshClient
      .post('/v1/messages', {
        body: { model: 'claude-sonnet-4-6', messages: [{ role: 'user', content: 'hi' }] },
      })
      .catch(() => undefined);
    const statuses: number[] = [];
    for (let attempt = 0; attempt < 2; attempt++) {
      await freshClient.messages
        .create({ model: 'claude-sonnet-4-6', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] })
        .catch(() => undefined);
    }
    for (const request of fresh.requests) statuses.push(request.status);
    assert.deepEqual(statuses, [400, 529, 200]);
  } finally {
    await fresh.close();
  }
});
