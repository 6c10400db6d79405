import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from '../../src/scripted-model/scripted-messages-server';

// The loopback server streams as the API does; the real SDK, pointed at it, must rebuild from the
// stream exactly the message the non-streaming path returns.

let server: ScriptedMessagesServer;
let client: Anthropic;

const longText = 'The workspace holds three files. I will read each one and then summarise what they say.';

before(async () => {
  server = await startScriptedMessagesServer({
    scenarios: [
      {
        name: 'stream',
        match: 'STREAM',
        turns: [
          {
            text: longText,
            toolCalls: [
              { name: 'read_file', input: { path: 'one.txt', offset: 0 } },
              { name: 'write_file', input: { path: 'notes.txt', content: 'recorded', mode: 'append' } },
            ],
          },
        ],
      },
      { name: 'slow', match: 'SLOW', turns: [{ text: longText, streamChunkDelayMs: 40 }] },
      {
        name: 'flaky',
        match: 'FLAKY',
        turns: [{ text: 'after a failure', failures: [{ status: 529 }] }],
      },
      {
        name: 'structured',
        match: 'STRUCTURED',
        turns: [{ text: 'unused' }],
        structured: [{ tool: 'plan', input: { steps: ['look', 'write'] } }],
      },
    ],
  });
  client = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
});

after(() => server.close());

const request = (text: string) => ({
  model: 'claude-sonnet-4-6',
  max_tokens: 1024,
  messages: [{ role: 'user' as const, content: text }],
});

test('a streamed answer rebuilds exactly the message the non-streaming path returns', async () => {
  const whole = await client.messages.create(request('STREAM please'));
  const events: string[] = [];
  const stream = client.messages.stream(request('STREAM please'));
  stream.on('streamEvent', (event) => events.push(event.type));
  // The SDK's stream helper adds parsed_output (structured outputs) to what it rebuilds.
  const { parsed_output: _parsed, ...rebuilt } = await stream.finalMessage();
  assert.deepStrictEqual(rebuilt, whole);
  assert.equal(whole.stop_reason, 'tool_use');
  assert.equal(whole.content.length, 3);

  // The API's event flow: message_start, per block start/deltas/stop, message_delta, message_stop.
  assert.equal(events[0], 'message_start');
  assert.deepEqual(events.slice(-2), ['message_delta', 'message_stop']);
  const starts = events.filter((type) => type === 'content_block_start').length;
  const stops = events.filter((type) => type === 'content_block_stop').length;
  assert.equal(starts, 3);
  assert.equal(stops, 3);

  const [first, second] = server.requests.filter((entry) => entry.scenario === 'stream');
  assert.equal(first?.stream, false);
  assert.equal(second?.stream, true);
  assert.deepEqual(second?.usage, first?.usage);
});

test('text arrives in chunks of about 40 characters and tool input in a few JSON pieces', async () => {
  const textDeltas: string[] = [];
  const jsonDeltas: string[] = [];
  const stream = client.messages.stream(request('STREAM in pieces'));
  stream.on('streamEvent', (event) => {
    if (event.type !== 'content_block_delta') return;
    if (event.delta.type === 'text_delta') textDeltas.push(event.delta.text);
    if (event.delta.type === 'input_json_delta') jsonDeltas.push(event.delta.partial_json);
  });
  await stream.finalMessage();
  assert.equal(textDeltas.join(''), longText);
  assert.ok(textDeltas.length >= 3, `${textDeltas.length} text chunks`);
  assert.ok(textDeltas.every((chunk) => chunk.length <= 40));
  assert.ok(jsonDeltas.length >= 4, `${jsonDeltas.length} JSON chunks for two calls`);
});

test('the raw stream is server-sent events with the usage in message_start and message_delta', async () => {
  const response = await fetch(`${server.url}/v1/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': 'k' },
    body: JSON.stringify({ ...request('STREAM raw'), stream: true }),
  });
  assert.equal(response.status, 200);
  assert.match(response.headers.get('content-type') ?? '', /^text\/event-stream/);
  const events = (await response.text())
    .trim()
    .split('\n\n')
    .map((chunk) => {
      const [eventLine, dataLine] = chunk.split('\n');
      const data = JSON.parse((dataLine ?? '').replace(/^data: /, '')) as {
        type: string;
        message?: { content: unknown[]; usage: Record<string, unknown> };
        usage?: Record<string, unknown>;
      };
      assert.equal(eventLine, `event: ${data.type}`, 'the SSE event name is the event type');
      return data;
    });
  assert.ok(
    events.some((event) => event.type === 'ping'),
    'pings, as the API sends',
  );
  const start = events[0];
  assert.deepEqual(start?.message?.content, []);
  assert.ok(typeof start?.message?.usage.input_tokens === 'number');
  assert.ok('cache_read_input_tokens' in (start?.message?.usage ?? {}));
  assert.ok('cache_creation_input_tokens' in (start?.message?.usage ?? {}));
  const delta = events.find((event) => event.type === 'message_delta');
  assert.ok(typeof delta?.usage?.output_tokens === 'number');
});

test('streamChunkDelayMs spaces the events out', async () => {
  const times: number[] = [];
  const started = Date.now();
  const stream = client.messages.stream(request('SLOW'));
  stream.on('streamEvent', () => times.push(Date.now()));
  const message = await stream.finalMessage();
  assert.equal(message.content[0]?.type === 'text' && message.content[0].text, longText);
  // message_start, ping, start, 3 text deltas, stop, message_delta, message_stop: 8 gaps of 40 ms.
  assert.ok(Date.now() - started >= 8 * 40 - 20, `took ${Date.now() - started} ms`);
  // The SDK passes on every event but the pings: each arrived on its own, about 40 ms apart.
  assert.equal(times.length, 8);
  const gaps = times.slice(1).map((time, index) => time - (times[index] as number));
  assert.ok(gaps.filter((gap) => gap >= 30).length >= 6, `gaps ${gaps.join(', ')}`);
});

test('a stream the client closes mid-way is recorded as interrupted, not as a completed turn', async () => {
  const stream = client.messages.stream(request('SLOW interrupted'));
  const ended = stream.finalMessage().then(
    () => 'whole',
    (error: unknown) => (error instanceof Anthropic.APIUserAbortError ? 'aborted' : String(error)),
  );
  await new Promise<void>((resolve) => stream.once('text', () => resolve()));
  stream.abort();
  assert.equal(await ended, 'aborted');
  await new Promise((resolve) => setTimeout(resolve, 200));
  const record = server.requests.filter((entry) => entry.scenario === 'slow').at(-1);
  assert.equal(record?.interrupted, true);
  assert.equal(server.completedTurnCounts().get('slow#0'), 1, 'only the earlier whole stream counts');
});

test('a scripted failure of a streaming request is JSON with its status, before any stream', async () => {
  const error = await client.messages
    .stream(request('FLAKY'))
    .finalMessage()
    .then(
      () => undefined,
      (failure: unknown) => failure,
    );
  assert.ok(error instanceof Anthropic.APIError);
  assert.equal(error.status, 529);
  const message = await client.messages.stream(request('FLAKY')).finalMessage();
  assert.equal(message.content[0]?.type === 'text' && message.content[0].text, 'after a failure');
  const statuses = server.requests.filter((entry) => entry.scenario === 'flaky').map((entry) => entry.status);
  assert.deepEqual(statuses, [529, 200]);
});

test('a structured answer streams too', async () => {
  const body = {
    ...request('STRUCTURED'),
    tools: [{ name: 'plan', input_schema: { type: 'object' as const } }],
    tool_choice: { type: 'tool' as const, name: 'plan' },
  };
  const whole = await client.messages.create(body);
  const rebuilt = await client.messages.stream(body).finalMessage();
  // Each attempt of a structured call names its tool call afresh (toolu_plan_1, toolu_plan_2).
  assert.deepStrictEqual(
    rebuilt.content.map((block) => ({ ...block, id: '' })),
    whole.content.map((block) => ({ ...block, id: '' })),
  );
  assert.deepEqual(rebuilt.content[0]?.type === 'tool_use' && rebuilt.content[0].input, {
    steps: ['look', 'write'],
  });
});
