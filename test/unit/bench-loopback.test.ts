import { test } from 'node:test';
import assert from 'node:assert/strict';
import Anthropic from '@anthropic-ai/sdk';
import { minimalValue, startLoopbackModel, turn } from '../../scripts/bench/loopback-model';
import { streamedMessage } from '../../scripts/bench/loopback-stream';
import { scenarioIn, scenarioPrompt, scriptedCall, ScenarioKind } from '../../scripts/bench/bench-scenario';

const sequential = { kind: ScenarioKind.Sequential, calls: 3, perTurn: 1 };

test('the bench scenario survives the round trip through the prompt', () => {
  assert.deepEqual(
    scenarioIn(JSON.stringify([{ role: 'user', content: scenarioPrompt(sequential) }])),
    sequential,
  );
  assert.equal(scenarioIn('no scenario here'), undefined);
});

test('the loopback model takes the next calls after the highest call id in the conversation', () => {
  const first = turn(sequential, scenarioPrompt(sequential));
  assert.deepEqual(
    first.content.map((block) => (block as { id: string }).id),
    ['toolu_bench_1'],
  );
  // Old turns condensed away: only the latest id is left, and it is enough.
  const later = turn({ ...sequential, perTurn: 5, calls: 7 }, '... "tool_use_id":"toolu_bench_4" ...');
  assert.deepEqual(
    later.content.map((block) => (block as { id: string }).id),
    ['toolu_bench_5', 'toolu_bench_6', 'toolu_bench_7'],
  );
  const done = turn(sequential, '"toolu_bench_3"');
  assert.equal(done.stop_reason, 'end_turn');
});

test('the mixed scenario has one irreversible call, halfway, and writes every fourth call', () => {
  const mixed = { kind: ScenarioKind.Mixed, calls: 10, perTurn: 1 };
  const names = Array.from({ length: 10 }, (_, index) => scriptedCall(mixed, index + 1).name);
  assert.equal(names.filter((name) => name === 'run_command').length, 1);
  assert.equal(names[4], 'run_command');
  assert.equal(names[3], 'write_file');
  assert.equal(names[0], 'read_file');
});

test('a forced structured call gets the smallest value its schema accepts', () => {
  assert.deepEqual(
    minimalValue({
      type: 'object',
      properties: {
        belief: { type: 'string', minLength: 3 },
        items: { type: 'array', minItems: 1, items: { type: 'integer', minimum: 2 } },
        kind: { enum: ['a', 'b'] },
        optional: { type: 'string' },
      },
      required: ['belief', 'items', 'kind'],
    }),
    { belief: 'xxx', items: [2], kind: 'a' },
  );
});

test('a streamed answer rebuilds exactly the non-streaming one (text, tool calls, usage)', async () => {
  const model = await startLoopbackModel();
  const client = new Anthropic({ apiKey: 'loopback-needs-no-key', baseURL: model.url, maxRetries: 0 });
  const scenario = { kind: ScenarioKind.Mixed, calls: 8, perTurn: 3 };
  const request = (conversation: string) => ({
    model: 'claude-sonnet-4-6',
    max_tokens: 1024,
    messages: [{ role: 'user' as const, content: `${scenarioPrompt(scenario)} ${conversation}` }],
  });
  try {
    // Reads, a write with content, the irreversible command, then the final text answer.
    for (const conversation of ['', 'toolu_bench_3', 'toolu_bench_6', 'toolu_bench_8']) {
      const whole = await client.messages.create(request(conversation));
      const streamed = await client.messages.stream(request(conversation)).finalMessage();
      assert.ok(whole.content.length > 0);
      // The id is random per answer; parsed_output is the SDK's own addition to a streamed one.
      const {
        id: _id,
        parsed_output: _parsed,
        ...rebuilt
      } = streamed as typeof streamed & {
        parsed_output?: unknown;
      };
      const { id: _wholeId, ...expected } = whole;
      assert.deepEqual(rebuilt, expected);
    }
    assert.equal(model.counts.turns, 8);
  } finally {
    await model.close();
  }
});

test('the streamed events follow the API: start, one group per block, delta, stop', () => {
  const answer = turn({ kind: ScenarioKind.Sequential, calls: 2, perTurn: 2 }, 'x');
  const events = [...streamedMessage(answer).matchAll(/^event: (\w+)\ndata: (.*)\n\n/gm)].map((match) => ({
    name: match[1],
    data: JSON.parse(match[2]!) as { type: string; delta?: { partial_json?: string } },
  }));
  assert.ok(events.every((event) => event.name === event.data.type));
  assert.deepEqual(
    events.map((event) => event.name),
    [
      'message_start',
      ...['content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop'],
      ...['content_block_start', 'content_block_delta', 'content_block_delta', 'content_block_stop'],
      'message_delta',
      'message_stop',
    ],
  );
  // The input JSON arrives in pieces that are not JSON on their own.
  const pieces = events.slice(2, 4).map((event) => event.data.delta?.partial_json ?? '');
  assert.throws(() => JSON.parse(pieces[0]!) as unknown);
  assert.deepEqual(JSON.parse(pieces.join('')), { path: 'files/file-1.txt' });
});
