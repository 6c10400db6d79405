import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from '../../src/scripted-model/scripted-messages-server';
import { blockTokens } from '../../src/scripted-model/token-count';

/**
 * The loopback server counts tokens by content, as tokenizers do (token-count.ts), and stops an
 * answer at the end of the model's context window (model_context_window_exceeded) the way the
 * API does (platform.claude.com/docs/en/build-with-claude/handling-stop-reasons).
 */

const WINDOW = 3000;
const ANSWER = Array.from({ length: 120 }, (_, index) => `Point ${index + 1} of the answer.`).join(' ');

let server: ScriptedMessagesServer;
let client: Anthropic;

before(async () => {
  server = await startScriptedMessagesServer({
    contextWindowTokens: WINDOW,
    scenarios: [
      { name: 'long', match: 'LONG', turns: [{ text: ANSWER }] },
      {
        name: 'scripted-full',
        match: 'SCRIPTED-FULL',
        turns: [{ text: 'cut', stopReason: 'model_context_window_exceeded' }],
      },
    ],
  });
  client = new Anthropic({ apiKey: 'test', baseURL: server.url, maxRetries: 0 });
});

after(async () => {
  await server.close();
});

/** The head of a PNG: its signature and the IHDR chunk, which say the image's size. */
function pngHead(width: number, height: number): Buffer {
  const head = Buffer.alloc(33);
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(head, 0);
  head.writeUInt32BE(13, 8);
  head.write('IHDR', 12, 'ascii');
  head.writeUInt32BE(width, 16);
  head.writeUInt32BE(height, 20);
  return head;
}

const text = (value: string) => ({ type: 'text' as const, text: value });

test('prose is four characters a token; dense text and text beyond ASCII count more', () => {
  const prose = 'plain words of an ordinary sentence '.repeat(50);
  assert.equal(blockTokens(text(prose)), Math.ceil(JSON.stringify(text(prose)).length / 4));
  const chinese = '按标记计算'.repeat(200);
  assert.ok(blockTokens(text(chinese)) >= chinese.length, 'a token a character beyond ASCII');
  const json = JSON.stringify(
    Array.from({ length: 100 }, (_, index) => ({ key: `k${index}`, value: index * 977 })),
  );
  assert.ok(blockTokens(text(json)) >= json.length / 2, 'minified JSON: two characters a token');
  const repeated = 'x'.repeat(4000);
  assert.equal(
    blockTokens(text(repeated)),
    Math.ceil(JSON.stringify(text(repeated)).length / 4),
    'one character repeated is not dense',
  );
  const image = (width: number, height: number) => ({
    type: 'image',
    source: { type: 'base64', media_type: 'image/png', data: pngHead(width, height).toString('base64') },
  });
  const frame = (block: { source: object }) =>
    Math.ceil(JSON.stringify({ ...block, source: { ...block.source, data: '' } }).length / 4);
  const small = image(100, 75);
  assert.equal(blockTokens(small as never), frame(small) + 10, 'an image costs its pixels / 750');
  const large = image(4000, 3000);
  assert.equal(blockTokens(large as never), frame(large) + 1600, 'scaled down to about 1,600 tokens');
});

function ask(prompt: string, padding: string) {
  return client.messages.create({
    model: 'claude-sonnet-4-5',
    max_tokens: 4000,
    messages: [{ role: 'user', content: `${prompt} ${padding}` }],
  });
}

test('an answer that fits behind its request is whole', async () => {
  const answer = await ask('LONG', '');
  assert.equal(answer.stop_reason, 'end_turn');
  assert.deepEqual(answer.content, [{ type: 'text', text: ANSWER }]);
});

test('an answer that would run past the window stops there: input and output together fill it', async () => {
  const answer = await ask('LONG', 'padding words '.repeat(800));
  assert.equal(answer.stop_reason, 'model_context_window_exceeded');
  const input =
    answer.usage.input_tokens +
    (answer.usage.cache_read_input_tokens ?? 0) +
    (answer.usage.cache_creation_input_tokens ?? 0);
  assert.equal(input + answer.usage.output_tokens, WINDOW);
});

test('a turn may script the stop too', async () => {
  const answer = await ask('SCRIPTED-FULL', '');
  assert.equal(answer.stop_reason, 'model_context_window_exceeded');
});
