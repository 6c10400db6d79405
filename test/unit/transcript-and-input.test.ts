import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendUserBlocks, describeMessage, textOf, userText } from '../../src/workflows/common/transcript';
import { parseGoalInput } from '../../src/workflows/goal/lifecycle/input';
import { parseDuration } from '../../src/workflows/common/duration';
import { connectionSettings } from '../../src/client/connection-settings';

test('user blocks merge into a trailing user message with tool results first', () => {
  const transcript = [
    userText('goal'),
    { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'hi' }] },
  ];
  const withResult = appendUserBlocks(transcript, [{ type: 'tool_result', tool_use_id: 't1', content: 'r' }]);
  assert.equal(withResult.length, 3);
  const merged = appendUserBlocks(withResult, [{ type: 'text', text: 'note' }]);
  assert.equal(merged.length, 3);
  assert.deepEqual(
    merged[2]?.content.map((block) => block.type),
    ['tool_result', 'text'],
  );
  const reordered = appendUserBlocks(
    [userText('a')],
    [{ type: 'tool_result', tool_use_id: 't', content: 'c' }],
  );
  assert.deepEqual(
    reordered[0]?.content.map((block) => block.type),
    ['tool_result', 'text'],
  );
  assert.equal(transcript.length, 2, 'the original is not mutated');
});

test('textOf and describeMessage render messages compactly', () => {
  assert.equal(textOf(userText('  hello ')), 'hello');
  const line = describeMessage({
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'x', name: 'list_dir', input: { path: '.' } }],
  });
  assert.equal(line, 'assistant: [tool_use list_dir {"path":"."}]');
  assert.equal(describeMessage(userText('x'.repeat(500)), 20).length, 20);
});

test('goal input: defaults applied, every bad field named on one line', () => {
  const ok = parseGoalInput({ goal: 'do it', workspace: '/w' });
  assert.ok(ok.ok);
  if (ok.ok) {
    assert.equal(ok.config.approvalPolicy, 'auto');
    assert.equal(ok.config.limits.approvalTimeoutMs, 24 * 3600 * 1000);
    assert.equal(ok.config.model.name, 'claude-sonnet-4-6');
  }
  const bad = parseGoalInput({ goal: ' ', workspace: 'w', approvalPolicy: 'maybe', apiKey: 'sk-no' });
  assert.equal(bad.ok, false);
  if (!bad.ok) {
    assert.ok(!bad.message.includes('\n'));
    assert.match(bad.message, /goal: goal text must not be empty/);
    assert.match(bad.message, /workspace: workspace must be an absolute path/);
    assert.match(bad.message, /approvalPolicy/);
    assert.match(bad.message, /apiKey/, 'unknown fields such as a key are refused, not stored');
  }
});

test('durations and connection settings', () => {
  assert.equal(parseDuration('24h'), 86_400_000);
  assert.equal(parseDuration('90s'), 90_000);
  assert.equal(parseDuration('500ms'), 500);
  assert.equal(parseDuration('1.5m'), 90_000);
  assert.equal(parseDuration('soon'), undefined);
  assert.equal(parseDuration('0s'), undefined);
  assert.deepEqual(connectionSettings({}, {}), {
    address: '127.0.0.1:7233',
    namespace: 'default',
    taskQueue: 'keel',
  });
  assert.deepEqual(
    connectionSettings({ taskQueue: 'flag' }, { TEMPORAL_ADDRESS: 'h:1', KEEL_TASK_QUEUE: 'env' }),
    { address: 'h:1', namespace: 'default', taskQueue: 'flag' },
  );
});
