import { test } from 'node:test';
import assert from 'node:assert/strict';
import { minimalValue, turn } from '../../scripts/bench/loopback-model';
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
