import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CONTINUE_CUT_TEXT,
  cutCallResult,
  judgeStop,
  moreRoomThan,
} from '../../src/workflows/goal/model-turn/stop-reasons';
import type { ContentBlock } from '../../src/workflows/common/transcript';

/**
 * The stop reasons' rules (issue 27: mutation testing; src/workflows/goal/model-turn/stop-reasons.ts): what
 * each stop reason means (a cut answer is a cut call when any tool_use block is in it, even beside
 * text, and cut text otherwise, an empty answer included); the room a cut call is asked again
 * with; and the whole texts told to the model.
 */

const text: ContentBlock = { type: 'text', text: 'half an answ' };
const toolUse: ContentBlock = { type: 'tool_use', id: 'toolu_1', name: 'write_file', input: { path: 'a' } };

test('max_tokens and a full context window: a cut call when any block is a tool_use, cut text otherwise', () => {
  for (const reason of ['max_tokens', 'model_context_window_exceeded']) {
    assert.equal(judgeStop(reason, [text, toolUse]), 'cut-call', `${reason}: text then a call`);
    assert.equal(judgeStop(reason, [toolUse]), 'cut-call', `${reason}: a call alone`);
    assert.equal(judgeStop(reason, [text]), 'cut-text', `${reason}: text alone`);
    assert.equal(judgeStop(reason, []), 'cut-text', `${reason}: nothing written`);
  }
});

test('refusal is a refusal and pause_turn a pause, whatever the content', () => {
  for (const content of [[text], [toolUse], []]) {
    assert.equal(judgeStop('refusal', content), 'refusal');
    assert.equal(judgeStop('pause_turn', content), 'paused');
  }
});

test('every other stop reason (end_turn, tool_use, stop_sequence, none, an unknown one) is an answer', () => {
  for (const reason of ['end_turn', 'tool_use', 'stop_sequence', null, '', 'MAX_TOKENS', 'something_new']) {
    assert.equal(judgeStop(reason, [text, toolUse]), 'answer', String(reason));
    assert.equal(judgeStop(reason, []), 'answer', String(reason));
  }
});

test('a known model is asked again with its whole output limit, while that is more than the room it had', () => {
  assert.equal(moreRoomThan('claude-sonnet-4-5', 4096), 64_000);
  assert.equal(moreRoomThan('claude-sonnet-4-5', 63_999), 64_000);
  assert.equal(moreRoomThan('claude-sonnet-4-5', 64_000), undefined, 'at the limit: no more room');
  assert.equal(moreRoomThan('claude-sonnet-4-5', 70_000), undefined);
  assert.equal(moreRoomThan('claude-opus-4-6', 100_000), 128_000, 'not twice the room: the limit');
});

test('an unknown model gets twice the room, at most 128,000 tokens, and none once it had that', () => {
  assert.equal(moreRoomThan('someone-elses-model', 4096), 8192);
  assert.equal(moreRoomThan('someone-elses-model', 63_999), 127_998);
  assert.equal(moreRoomThan('someone-elses-model', 64_001), 128_000);
  assert.equal(moreRoomThan('someone-elses-model', 127_999), 128_000);
  assert.equal(moreRoomThan('someone-elses-model', 128_000), undefined);
});

test('the tool_result of a cut call, whole', () => {
  assert.equal(
    cutCallResult(4096),
    'Not run: your answer reached the max_tokens limit (4096 tokens) while you were writing this call, so its input is incomplete. Make the call smaller (for example, write a large file in several parts) and call it again.',
  );
});

test('the note after cut text, whole', () => {
  assert.equal(
    CONTINUE_CUT_TEXT,
    '[keel: your answer reached the max_tokens limit and was cut off. Continue exactly where it stopped, without repeating what you already wrote.]',
  );
});
