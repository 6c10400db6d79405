import { test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { startScriptedMessagesServer } from '../../src/scripted-model/scripted-messages-server';
import { blockTokens } from '../../src/scripted-model/token-count';

// Prompt caching as the API bills it: what a request reads, writes and pays in full, per model,
// with lifetimes on an injected clock.

type TextBlock = Anthropic.TextBlockParam;
const MINUTE = 60_000;

const text = (characters: number, seed: string, ttl?: '5m' | '1h'): TextBlock => ({
  type: 'text',
  text: `${seed} `.repeat(Math.ceil(characters / (seed.length + 1))).slice(0, characters),
  ...(ttl ? { cache_control: { type: 'ephemeral' as const, ttl } } : {}),
});
const marked = (block: TextBlock, ttl: '5m' | '1h' = '5m'): TextBlock => ({
  ...block,
  cache_control: { type: 'ephemeral', ttl },
});
const tokens = (...blocks: TextBlock[]) => blocks.reduce((sum, block) => sum + blockTokens({ ...block }), 0);

async function withServer(
  run: (client: Anthropic, clock: { now: number }) => Promise<void>,
  options: { contextWindowTokens?: number } = {},
): Promise<void> {
  const clock = { now: 1_000_000 };
  const server = await startScriptedMessagesServer({
    scenarios: [
      {
        name: 'cache',
        turns: Array.from({ length: 10 }, () => ({ text: 'ok' })),
        structured: [{ tool: 'plan', input: { steps: ['one'] } }],
      },
    ],
    now: () => clock.now,
    ...options,
  });
  try {
    await run(new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 }), clock);
  } finally {
    await server.close();
  }
}

function usageOf(message: Anthropic.Message) {
  const { input_tokens, cache_read_input_tokens, cache_creation_input_tokens, cache_creation } =
    message.usage;
  return {
    input: input_tokens,
    read: cache_read_input_tokens,
    written: cache_creation_input_tokens,
    written5m: cache_creation?.ephemeral_5m_input_tokens,
    written1h: cache_creation?.ephemeral_1h_input_tokens,
  };
}

const system = text(8000, 'You are a careful agent.'); // about 2,000 tokens: over Sonnet's 1,024
const question = text(40, 'What does notes.txt say?');

test('the first request writes the prefix up to its breakpoint; the same prefix is read next time', async () => {
  await withServer(async (client) => {
    const request = {
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      system: [marked(system)],
      messages: [{ role: 'user' as const, content: [question] }],
    };
    const first = usageOf(await client.messages.create(request));
    assert.deepEqual(first, {
      input: tokens(question),
      read: 0,
      written: tokens(system),
      written5m: tokens(system),
      written1h: 0,
    });
    const second = usageOf(await client.messages.create(request));
    assert.deepEqual(second, {
      input: tokens(question),
      read: tokens(system),
      written: 0,
      written5m: 0,
      written1h: 0,
    });
  });
});

test('a request extending the previous one reads its whole prefix and writes only what is new', async () => {
  await withServer(async (client) => {
    const answer = text(200, 'It says hello.');
    const follow = text(40, 'And then?');
    await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      system: [marked(system)],
      messages: [{ role: 'user', content: [marked(question)] }],
    });
    const second = await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      system: [marked(system)],
      messages: [
        { role: 'user', content: [question] },
        { role: 'assistant', content: [answer] },
        { role: 'user', content: [marked(follow)] },
      ],
    });
    assert.deepEqual(usageOf(second), {
      input: 0,
      read: tokens(system, question),
      written: tokens(answer, follow),
      written5m: tokens(answer, follow),
      written1h: 0,
    });
  });
});

test('a prefix under the model’s minimum is neither written nor read', async () => {
  await withServer(async (client) => {
    const short = text(2000, 'Short instructions.'); // about 500 tokens
    const request = {
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      system: [marked(short)],
      messages: [{ role: 'user' as const, content: [question] }],
    };
    for (let attempt = 0; attempt < 2; attempt++)
      assert.deepEqual(usageOf(await client.messages.create(request)), {
        input: tokens(short, question),
        read: 0,
        written: 0,
        written5m: 0,
        written1h: 0,
      });
    // Opus 4.6 needs 4,096 tokens: the 2,000-token system prompt that Sonnet caches is too short.
    const opus = { ...request, model: 'claude-opus-4-6', system: [marked(system)] };
    assert.equal(usageOf(await client.messages.create(opus)).written, 0);
  });
});

test('an entry lives five minutes from its last use, and each read refreshes it', async () => {
  await withServer(async (client, clock) => {
    const request = {
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      system: [marked(system)],
      messages: [{ role: 'user' as const, content: [question] }],
    };
    assert.equal(usageOf(await client.messages.create(request)).written, tokens(system));
    clock.now += 4 * MINUTE + 59_000;
    assert.equal(usageOf(await client.messages.create(request)).read, tokens(system), 'read at 4:59');
    clock.now += 4 * MINUTE + 59_000;
    assert.equal(
      usageOf(await client.messages.create(request)).read,
      tokens(system),
      'refreshed by the read',
    );
    clock.now += 5 * MINUTE + 1000;
    const expired = usageOf(await client.messages.create(request));
    assert.equal(expired.read, 0, 'expired five minutes after its last use');
    assert.equal(expired.written, tokens(system), 'and written again');
  });
});

test('a 1h entry outlives five minutes; 1h and 5m writes are reported apart', async () => {
  await withServer(async (client, clock) => {
    const request = {
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      system: [marked(system, '1h')],
      messages: [{ role: 'user' as const, content: [marked(question, '5m')] }],
    };
    const first = usageOf(await client.messages.create(request));
    assert.deepEqual(first, {
      input: 0,
      read: 0,
      written: tokens(system, question),
      written1h: tokens(system),
      written5m: tokens(question),
    });
    clock.now += 30 * MINUTE;
    const later = usageOf(await client.messages.create(request));
    assert.equal(later.read, tokens(system), 'the 1h entry is read after 30 minutes');
    assert.equal(later.written5m, tokens(question), 'the 5m one expired and is written again');
    clock.now += 61 * MINUTE;
    assert.equal(usageOf(await client.messages.create(request)).read, 0, 'gone after an hour unused');
  });
});

test('more than four breakpoints are refused', async () => {
  await withServer(async (client) => {
    const error = await client.messages
      .create({
        model: 'claude-sonnet-4-6',
        max_tokens: 100,
        system: [marked(system), marked(text(10, 'a')), marked(text(10, 'b'))],
        messages: [{ role: 'user', content: [marked(text(10, 'c')), marked(question)] }],
      })
      .then(
        () => undefined,
        (failure: unknown) => failure,
      );
    assert.ok(error instanceof Anthropic.BadRequestError);
    assert.match(error.message, /A maximum of 4 blocks with cache_control may be provided\. Found 5\./);
  });
});

test('a breakpoint looks back 20 positions, itself included, for an earlier entry', async () => {
  const opening = text(8000, 'The whole report.');
  const extra = (count: number, seed = 'note') =>
    Array.from({ length: count }, (_, index) => text(20, `${seed} ${index}`));
  const lastMarked = (blocks: TextBlock[]) => [...blocks.slice(0, -1), marked(blocks.at(-1) as TextBlock)];
  for (const [added, hits] of [
    [19, true],
    [20, false],
  ] as const) {
    await withServer(async (client) => {
      await client.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 100,
        messages: [{ role: 'user', content: [marked(opening)] }],
      });
      const grown = await client.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 100,
        messages: [{ role: 'user', content: lastMarked([opening, ...extra(added)]) }],
      });
      assert.equal(usageOf(grown).read, hits ? tokens(opening) : 0, `${added} blocks added`);
      if (hits) return;
      // A second breakpoint at the old position starts a lookback window of its own.
      const others = extra(20, 'other');
      const withSecond = await client.messages.create({
        model: 'claude-sonnet-4-6',
        max_tokens: 100,
        messages: [{ role: 'user', content: lastMarked([marked(opening), ...others]) }],
      });
      assert.equal(usageOf(withSecond).read, tokens(opening));
      assert.equal(usageOf(withSecond).written, tokens(...others));
    });
  }
});

test('a run of parallel tool_use blocks, or of tool_result blocks, is one lookback position', async () => {
  await withServer(async (client) => {
    const opening = text(8000, 'The whole report.');
    await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      messages: [{ role: 'user', content: [marked(opening)] }],
    });
    const ids = Array.from({ length: 12 }, (_, index) => `toolu_parallel_${index}`);
    const results: Anthropic.ToolResultBlockParam[] = ids.map((id) => ({
      type: 'tool_result',
      tool_use_id: id,
      content: 'read',
    }));
    const last = results.at(-1) as Anthropic.ToolResultBlockParam;
    // 25 blocks after the old breakpoint, but only three positions: the results, the calls, the text.
    const grown = await client.messages.create({
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      messages: [
        { role: 'user', content: [opening] },
        {
          role: 'assistant',
          content: [
            { type: 'text', text: 'Reading them all.' },
            ...ids.map((id) => ({ type: 'tool_use' as const, id, name: 'read_file', input: { path: id } })),
          ],
        },
        {
          role: 'user',
          content: [...results.slice(0, -1), { ...last, cache_control: { type: 'ephemeral' } }],
        },
      ],
    });
    assert.equal(usageOf(grown).read, tokens(opening));
  });
});

test('changing the thinking settings invalidates cached messages, not tools or system', async () => {
  await withServer(async (client) => {
    const request = (budget: number) => ({
      model: 'claude-sonnet-4-6',
      max_tokens: 4096,
      thinking: { type: 'enabled' as const, budget_tokens: budget },
      system: [marked(system)],
      messages: [{ role: 'user' as const, content: [marked(text(6000, 'A long question.'))] }],
    });
    await client.messages.create(request(1024));
    assert.equal(usageOf(await client.messages.create(request(1024))).written, 0, 'same settings: all read');
    const changed = usageOf(await client.messages.create(request(2048)));
    assert.equal(changed.read, tokens(system), 'the system entry stays');
    assert.equal(changed.written, tokens(text(6000, 'A long question.')), 'the messages are written again');
  });
});

test('the cache is per model', async () => {
  await withServer(async (client) => {
    const request = (model: string) => ({
      model,
      max_tokens: 100,
      system: [marked(system)],
      messages: [{ role: 'user' as const, content: [question] }],
    });
    await client.messages.create(request('claude-sonnet-4-6'));
    assert.equal(usageOf(await client.messages.create(request('claude-sonnet-4-5'))).read, 0);
    assert.equal(usageOf(await client.messages.create(request('claude-sonnet-4-6'))).read, tokens(system));
  });
});

test('structured calls and streams are accounted the same way, and each request’s usage is recorded', async () => {
  const server = await startScriptedMessagesServer({
    scenarios: [
      {
        name: 'cache',
        turns: [{ text: 'ok' }, { text: 'ok' }],
        structured: [{ tool: 'plan', input: { steps: ['one'] } }],
      },
    ],
  });
  try {
    const client = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const tools: Anthropic.Tool[] = [{ name: 'plan', input_schema: { type: 'object' } }];
    const structured = {
      model: 'claude-sonnet-4-6',
      max_tokens: 100,
      tools,
      tool_choice: { type: 'tool' as const, name: 'plan' },
      system: [marked(system)],
      messages: [{ role: 'user' as const, content: [question] }],
    };
    await client.messages.create(structured);
    const streamed = await client.messages.stream(structured).finalMessage();
    const toolTokens = blockTokens(tools[0] as never);
    assert.equal(usageOf(streamed).read, toolTokens + tokens(system));
    assert.deepEqual(
      server.requests.map((request) => [request.stream, request.usage]),
      [
        [
          false,
          {
            inputTokens: tokens(question),
            cacheReadInputTokens: 0,
            cacheCreationInputTokens: toolTokens + tokens(system),
            outputTokens: streamed.usage.output_tokens,
          },
        ],
        [
          true,
          {
            inputTokens: tokens(question),
            cacheReadInputTokens: toolTokens + tokens(system),
            cacheCreationInputTokens: 0,
            outputTokens: streamed.usage.output_tokens,
          },
        ],
      ],
    );
  } finally {
    await server.close();
  }
});
