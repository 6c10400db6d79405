import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  CHECKPOINT_MARKER,
  checkpointDue,
  checkpointPrompt,
  MAX_QUOTED_TASK_CHARACTERS,
  truncateText,
} from '../../src/workflows/principles/cadence';

/**
 * The checkpoint cadence's rules at their edges (issue 27: mutation testing): cadence.test.ts
 * checks the prompt by its parts; these pin the marker other code looks for, the prompt's whole
 * text with and without a task, cadence 1, and a cut to fewer than 3 characters.
 */

test('the marker is "[Scheduled checkpoint]" and the quoted task is at most 300 characters', () => {
  assert.equal(CHECKPOINT_MARKER, '[Scheduled checkpoint]');
  assert.equal(MAX_QUOTED_TASK_CHARACTERS, 300);
});

test('cadence 1 fires after every call; the first call after a checkpoint at 4 is due at 5', () => {
  assert.equal(checkpointDue(0, 0, 1), undefined);
  assert.equal(checkpointDue(1, 0, 1), 1);
  assert.equal(checkpointDue(4, 4, 1), undefined);
  assert.equal(checkpointDue(5, 4, 1), 1);
});

test('the checkpoint prompt with a task, whole: the marker, the calls, the quoted task, three questions', () => {
  assert.equal(
    checkpointPrompt({ toolCallsSinceCheckpoint: 12, taskText: 'Summarise the design notes.' }),
    [
      '[Scheduled checkpoint] This is a routine recalibration that comes on a fixed schedule, not an interruption.',
      'You have made 12 tool calls since the last checkpoint.',
      'The original task, quoted verbatim:',
      '<task>',
      'Summarise the design notes.',
      '</task>',
      'Before your next tool call, answer in plain text:',
      '1. Say whether the current plan still matches the task; if it does not, say how the plan changes.',
      '2. State what the last 12 tool calls proved or ruled out.',
      '3. Name the next concrete output (an edit, an answer, a summary) and roughly how many steps away it is.',
    ].join('\n'),
  );
});

test('the checkpoint prompt without a task, whole, for 1 call: restate the goal first; "1 tool call" in both places', () => {
  assert.equal(
    checkpointPrompt({ toolCallsSinceCheckpoint: 1 }),
    [
      '[Scheduled checkpoint] This is a routine recalibration that comes on a fixed schedule, not an interruption.',
      'You have made 1 tool call since the last checkpoint.',
      'The original task was not recorded: restate the goal in one sentence first.',
      'Before your next tool call, answer in plain text:',
      '1. Say whether the current plan still matches the task; if it does not, say how the plan changes.',
      '2. State what the last 1 tool call proved or ruled out.',
      '3. Name the next concrete output (an edit, an answer, a summary) and roughly how many steps away it is.',
    ].join('\n'),
  );
});

test('a task with text around blanks is quoted as given, blanks and all (only a blank task counts as none)', () => {
  const prompt = checkpointPrompt({ toolCallsSinceCheckpoint: 7, taskText: '  Fix it.  ' });
  assert.ok(prompt.includes('<task>\n  Fix it.  \n</task>'), prompt);
});

test('a cut to fewer than 3 characters leaves only the dots; a text within the limit is never cut', () => {
  assert.equal(truncateText('abcdef', 2), '...');
  assert.equal(truncateText('abcdef', 4), 'a...');
  assert.equal(truncateText('ab', 2), 'ab');
  assert.equal(truncateText('', 0), '');
});
