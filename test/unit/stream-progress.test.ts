import { test } from 'node:test';
import assert from 'node:assert/strict';
import type Anthropic from '@anthropic-ai/sdk';
import { StreamProgressTracker } from '../../src/activities/model/stream-progress';

const event = (value: unknown) => value as Anthropic.MessageStreamEvent;

test('the progress of a stream: the block being written, its latest text, the tokens so far', () => {
  const progress = new StreamProgressTracker();
  assert.deepEqual(progress.snapshot(), {
    kind: 'model-stream',
    outputTokens: 0,
    bytes: 0,
    events: 0,
    latest: '',
    writing: 'nothing yet',
  });
  progress.observe(
    event({
      type: 'content_block_start',
      index: 0,
      content_block: { type: 'thinking', thinking: '', signature: '' },
    }),
  );
  progress.observe(
    event({
      type: 'content_block_delta',
      index: 0,
      delta: { type: 'thinking_delta', thinking: 'Let me see.' },
    }),
  );
  assert.equal(progress.snapshot().writing, 'thinking');
  assert.equal(progress.snapshot().latest, 'Let me see.');
  progress.observe(
    event({ type: 'content_block_start', index: 1, content_block: { type: 'text', text: '' } }),
  );
  progress.observe(
    event({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'x'.repeat(500) } }),
  );
  assert.equal(progress.snapshot().latest.length, 160, 'only the latest characters travel');
  progress.observe(
    event({
      type: 'content_block_start',
      index: 2,
      content_block: { type: 'tool_use', id: 't', name: 'write_file', input: {} },
    }),
  );
  progress.observe(
    event({
      type: 'content_block_delta',
      index: 2,
      delta: { type: 'input_json_delta', partial_json: '{"path":' },
    }),
  );
  const writing = progress.snapshot();
  assert.equal(writing.writing, 'tool');
  assert.equal(writing.tool, 'write_file');
  assert.equal(writing.outputTokens, Math.ceil((11 + 500 + 8) / 4));
  progress.observe(
    event({
      type: 'message_delta',
      delta: { stop_reason: 'tool_use', stop_sequence: null },
      usage: { output_tokens: 321 },
    }),
  );
  assert.equal(progress.snapshot().outputTokens, 321, "the endpoint's own count wins once it sends one");
  assert.equal(progress.snapshot().events, 7, 'every event counts');
  progress.received(120);
  progress.received(30);
  assert.equal(progress.snapshot().bytes, 150, 'raw bytes (pings too) as they arrive');
});
