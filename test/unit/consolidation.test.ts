import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  condensableThrough,
  condensedTurnsIn,
  replaceWithBelief,
} from '../../src/workflows/planning/consolidation';
import { userText, type TranscriptMessage } from '../../src/workflows/common/transcript';
import { workerDefaultsFromEnv } from '../../src/activities/worker-defaults';

function conversation(turns: number): TranscriptMessage[] {
  const messages: TranscriptMessage[] = [userText('the task')];
  for (let turn = 1; turn <= turns; turn++) {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `t${turn}`, name: 'list_dir', input: { pad: 'x'.repeat(200) } }],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `t${turn}`, content: 'y'.repeat(200) }],
    });
  }
  return messages;
}

test('the cut ends on a user message, so kept tool calls keep their results', () => {
  const transcript = conversation(6);
  const through = condensableThrough({ transcript, keepLatestMessages: 2, targetChars: 1200 });
  assert.ok(through !== undefined && through >= 2);
  assert.equal(transcript[through]?.role, 'user');
  const condensed = replaceWithBelief(transcript, through, 'one belief');
  assert.equal(condensed[0]?.role, 'user');
  assert.equal(condensed[1]?.role, 'assistant');
  condensed.forEach((message, index) => assert.equal(message.role, index % 2 === 0 ? 'user' : 'assistant'));
  assert.equal(condensedTurnsIn(JSON.stringify(condensed[0]?.content)), through / 2);
  assert.equal(condensed.length, transcript.length - through);
});

test('nothing to condense under the target, or when only the latest messages are left', () => {
  assert.equal(
    condensableThrough({ transcript: conversation(6), keepLatestMessages: 2, targetChars: 1_000_000 }),
    undefined,
  );
  assert.equal(
    condensableThrough({ transcript: conversation(1), keepLatestMessages: 2, targetChars: 10 }),
    undefined,
  );
});

test('the worker default cadence comes from KEEL_REFLECTION_CADENCE, with one clear error line', () => {
  assert.deepEqual(workerDefaultsFromEnv({}, false), { ledgerSinks: false });
  assert.deepEqual(workerDefaultsFromEnv({ KEEL_REFLECTION_CADENCE: '0' }, true), {
    reflectionCadence: 0,
    ledgerSinks: true,
  });
  assert.throws(
    () => workerDefaultsFromEnv({ KEEL_REFLECTION_CADENCE: 'often' }, false),
    /KEEL_REFLECTION_CADENCE must be a whole number/,
  );
});
