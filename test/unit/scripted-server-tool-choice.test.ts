import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import {
  startScriptedMessagesServer,
  type ScriptedMessagesServer,
} from '../../src/scripted-model/scripted-messages-server';

// tool_choice none (keel's closing report): text only, the scenario's report when it has one, its
// failures on their own attempts, and a tool_choice the API would refuse refused.

let server: ScriptedMessagesServer;
let client: Anthropic;

const tools = [{ name: 'read_file', description: 'read a file', input_schema: { type: 'object' as const } }];

before(async () => {
  server = await startScriptedMessagesServer({
    scenarios: [
      {
        name: 'reports',
        match: 'REPORTS',
        turns: [{ text: 'Reading.', toolCalls: [{ name: 'read_file', input: { path: 'a' } }] }],
        report: {
          text: 'Done: read a. Left: everything else.',
          failures: [{ status: 500, message: 'scripted outage' }],
        },
      },
      {
        name: 'plain',
        match: 'PLAIN',
        turns: [
          { text: 'Looking around.', toolCalls: [{ name: 'read_file', input: { path: 'a' } }] },
          { toolCalls: [{ name: 'read_file', input: { path: 'b' } }] },
        ],
      },
    ],
  });
  client = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
});

after(() => server.close());

const body = (text: string, extra: Record<string, unknown> = {}) => ({
  model: 'claude-sonnet-4-6',
  max_tokens: 1024,
  tools,
  messages: [{ role: 'user' as const, content: text }],
  ...extra,
});

test('under tool_choice none the scenario’s report answers, after its scripted failures', async () => {
  await assert.rejects(
    client.messages.create(body('REPORTS', { tool_choice: { type: 'none' } })),
    (error: unknown) => error instanceof Anthropic.APIError && error.status === 500,
  );
  const answer = await client.messages.create(body('REPORTS', { tool_choice: { type: 'none' } }));
  assert.deepEqual(answer.content, [{ type: 'text', text: 'Done: read a. Left: everything else.' }]);
  assert.equal(answer.stop_reason, 'end_turn');
  const recorded = server.requests.filter((request) => request.scenario === 'reports');
  assert.deepEqual(
    recorded.map((request) => [request.status, request.toolsRefused]),
    [
      [500, true],
      [200, true],
    ],
  );
  // The same turn with tools allowed still calls them: the report's failures were its own.
  const withTools = await client.messages.create(body('REPORTS'));
  assert.equal(withTools.stop_reason, 'tool_use');
  assert.equal(server.completedTurnCounts().get('reports#0'), 1, 'a report is not a completed turn');
});

test('without a scripted report the turn’s text comes alone, never a tool call, streamed too', async () => {
  const whole = await client.messages.create(body('PLAIN', { tool_choice: { type: 'none' } }));
  assert.deepEqual(whole.content, [{ type: 'text', text: 'Looking around.' }]);
  assert.equal(whole.stop_reason, 'end_turn');
  const streamed = await client.messages
    .stream(body('PLAIN', { tool_choice: { type: 'none' } }))
    .finalMessage();
  assert.deepEqual(streamed.content, [{ type: 'text', text: 'Looking around.' }]);
  // A turn with no text says so rather than answering with nothing.
  const second = await client.messages.create({
    ...body('PLAIN', { tool_choice: { type: 'none' } }),
    messages: [
      { role: 'user', content: 'PLAIN' },
      { role: 'assistant', content: 'Looked.' },
      { role: 'user', content: 'Report now.' },
    ],
  });
  assert.equal(second.content.length, 1);
  assert.equal(second.content[0]?.type, 'text');
  assert.match(JSON.stringify(second.content), /has no text for turn 2 and tools were refused/);
});

test('a tool_choice the API does not know is refused as the API refuses it', async () => {
  await assert.rejects(
    client.messages.create(body('PLAIN', { tool_choice: { type: 'never' } })),
    (error: unknown) =>
      error instanceof Anthropic.APIError &&
      error.status === 400 &&
      /tool_choice: Input tag 'never' found using 'type' does not match any of the expected tags: 'auto', 'any', 'tool', 'none'/.test(
        error.message,
      ),
  );
  await assert.rejects(
    client.messages.create(body('PLAIN', { tool_choice: { type: 'tool' } })),
    (error: unknown) =>
      error instanceof Anthropic.APIError && /tool_choice\.tool\.name: Field required/.test(error.message),
  );
});
