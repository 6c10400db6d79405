import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from '../../src/scripted-model/scripted-messages-server';
import { parseScenario } from '../../src/scripted-model/scenario';

// Every stop reason a turn can script, streamed and whole, and a model whose answer needs room.

let server: ScriptedMessagesServer;
let client: Anthropic;

const write = {
  name: 'write_file',
  input: { path: 'notes.txt', content: 'a long report', mode: 'overwrite' },
};

before(async () => {
  server = await startScriptedMessagesServer({
    scenarios: [
      {
        name: 'cut',
        match: 'CUT',
        turns: [
          {
            text: 'Writing the report.',
            toolCalls: [{ name: 'list_dir', input: { path: '.' } }, write],
            stopReason: 'max_tokens',
          },
        ],
      },
      {
        name: 'cut-text',
        match: 'TRUNCATED',
        turns: [{ text: 'The report begins with', stopReason: 'max_tokens' }],
      },
      {
        name: 'roomy',
        match: 'ROOMY',
        turns: [
          { text: 'Writing the report.', toolCalls: [write], cutBelowMaxTokens: 8000 },
          { text: 'written' },
        ],
      },
      {
        name: 'refuses',
        match: 'REFUSE',
        turns: [{ text: 'I can’t help with that.', stopReason: 'refusal' }],
      },
      {
        name: 'pauses',
        match: 'PAUSE',
        turns: [{ text: 'Still searching…', stopReason: 'pause_turn' }, { text: 'Found it.' }],
      },
      { name: 'stops', match: 'STOPSEQ', turns: [{ text: 'Step one', stopReason: 'stop_sequence' }] },
      { name: 'ends', match: 'END', turns: [{ text: 'Done.', stopReason: 'end_turn', outputTokens: 1234 }] },
    ],
  });
  client = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
});

after(() => server.close());

const request = (text: string, maxTokens = 1024) => ({
  model: 'claude-sonnet-4-6',
  max_tokens: maxTokens,
  messages: [{ role: 'user' as const, content: text }],
});

async function both(body: ReturnType<typeof request>) {
  const whole = await client.messages.create(body);
  const { parsed_output: _parsed, ...streamed } = await client.messages.stream(body).finalMessage();
  return { whole, streamed };
}

test('max_tokens cuts the last tool call: mid-JSON in a stream, every entry but the last when whole', async () => {
  const jsonPieces: string[] = [];
  const stream = client.messages.stream(request('CUT'));
  stream.on('inputJson', (partial) => jsonPieces.push(partial));
  await stream.finalMessage();
  const sent = jsonPieces.slice(-3).join('');
  assert.ok(!sent.endsWith('}'), `the cut JSON stops mid-way: ${jsonPieces.join('')}`);

  const { whole, streamed } = await both(request('CUT'));
  assert.equal(whole.stop_reason, 'max_tokens');
  assert.deepStrictEqual(streamed, whole);
  const calls = whole.content.filter((block) => block.type === 'tool_use');
  assert.deepEqual(calls[0]?.input, { path: '.' }, 'earlier calls are whole');
  assert.deepEqual(
    calls[1]?.input,
    { path: 'notes.txt', content: 'a long report' },
    'the last lost its last entry',
  );
  assert.equal(whole.usage.output_tokens, 1024, 'a cut answer used all of max_tokens');
});

test('max_tokens with text only sends the text as scripted', async () => {
  const { whole, streamed } = await both(request('TRUNCATED'));
  assert.equal(whole.stop_reason, 'max_tokens');
  assert.deepEqual(whole.content, [{ type: 'text', text: 'The report begins with' }]);
  assert.deepStrictEqual(streamed, whole);
});

test('cutBelowMaxTokens: cut under that much room, whole with it; asked again, the same turn', async () => {
  const small = await client.messages.create(request('ROOMY', 4096));
  assert.equal(small.stop_reason, 'max_tokens');
  const call = small.content.find((block) => block.type === 'tool_use');
  assert.deepEqual(call?.type === 'tool_use' && call.input, { path: 'notes.txt', content: 'a long report' });
  // The cut answer is discarded and the turn asked again with more room: the same scripted turn.
  const roomy = await client.messages.create(request('ROOMY', 8000));
  assert.equal(roomy.stop_reason, 'tool_use');
  const whole = roomy.content.find((block) => block.type === 'tool_use');
  assert.deepEqual(whole?.type === 'tool_use' && whole.input, write.input);
  assert.deepEqual(
    server.requests.filter((entry) => entry.scenario === 'roomy').map((entry) => entry.turnIndex),
    [0, 0],
  );
});

test('refusal: stop_reason refusal with the turn’s text', async () => {
  const { whole, streamed } = await both(request('REFUSE'));
  assert.equal(whole.stop_reason, 'refusal');
  assert.equal(whole.content[0]?.type === 'text' && whole.content[0].text, 'I can’t help with that.');
  assert.equal(whole.stop_details?.type, 'refusal');
  assert.deepStrictEqual(streamed, whole);
});

test('pause_turn: sent back as the last message, the paused answer counts as a turn and is continued', async () => {
  const paused = await client.messages.create(request('PAUSE'));
  assert.equal(paused.stop_reason, 'pause_turn');
  const continued = await client.messages.create({
    ...request('PAUSE'),
    messages: [
      { role: 'user', content: 'PAUSE' },
      { role: 'assistant', content: paused.content },
    ],
  });
  assert.equal(continued.content[0]?.type === 'text' && continued.content[0].text, 'Found it.');
  assert.equal(server.requests.at(-1)?.turnIndex, 1);
});

test('stop_sequence names the first of the request’s stop sequences', async () => {
  const answer = await client.messages.create({ ...request('STOPSEQ'), stop_sequences: ['\nStep two'] });
  assert.equal(answer.stop_reason, 'stop_sequence');
  assert.equal(answer.stop_sequence, '\nStep two');
});

test('end_turn with a scripted output token count', async () => {
  const { whole, streamed } = await both(request('END'));
  assert.equal(whole.stop_reason, 'end_turn');
  assert.equal(whole.usage.output_tokens, 1234);
  assert.deepStrictEqual(streamed, whole);
});

test('the new turn fields are checked: a stop reason the API has, a delay of zero or more', () => {
  assert.throws(() => parseScenario({ name: 'x', turns: [{ stopReason: 'tool_use' }] }), /stopReason/);
  assert.throws(
    () => parseScenario({ name: 'x', turns: [{ streamChunkDelayMs: -1 }] }),
    /streamChunkDelayMs/,
  );
});
