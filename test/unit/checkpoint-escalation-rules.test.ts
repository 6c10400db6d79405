import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkpointIgnoredPrompt,
  DEFAULT_CHECKPOINT_ESCALATION_SETTINGS,
  initialCheckpointRecord,
  judgeCheckpointReply,
  type CheckpointEscalationSettings,
  type CheckpointRecord,
} from '../../src/workflows/principles/checkpoint-escalation';

/**
 * Checkpoint escalation's rules (checkpoint-escalation.ts; issue 27: mutation testing): an
 * ignored checkpoint warns; once 2 checkpoints are judged and under half were answered the goal
 * escalates to enforced checkpoints; under enforcement an ignoring reply is a held turn, and the
 * 3rd held turn in a row stops the goal; and the prompt's whole text.
 */

const settings = DEFAULT_CHECKPOINT_ESCALATION_SETTINGS;
const record = (over: Partial<CheckpointRecord> = {}): CheckpointRecord => ({
  ...initialCheckpointRecord(),
  ...over,
});

test('the defaults: on, escalate below a 0.5 answer rate from 2 checkpoints, stop at 3 held turns; a record starts at zero', () => {
  assert.deepEqual(DEFAULT_CHECKPOINT_ESCALATION_SETTINGS, {
    enabled: true,
    minResponseRate: 0.5,
    minCheckpoints: 2,
    stopAfterHeldTurns: 3,
  });
  assert.deepEqual(initialCheckpointRecord(), { judged: 0, answered: 0, escalated: false, heldTurns: 0 });
});

test('turned off: no verdict and the record untouched', () => {
  const held = record({ escalated: true, heldTurns: 2 });
  assert.deepEqual(judgeCheckpointReply(held, false, { ...settings, enabled: false }), { kind: 'none' });
  assert.deepEqual(held, record({ escalated: true, heldTurns: 2 }));
});

test('an answered checkpoint counts as judged and answered, no verdict', () => {
  const current = record();
  assert.deepEqual(judgeCheckpointReply(current, true, settings), { kind: 'none' });
  assert.deepEqual(current, record({ judged: 1, answered: 1 }));
});

test('the 1st ignored checkpoint warns (too few judged to escalate), with its numbers', () => {
  const current = record();
  assert.deepEqual(judgeCheckpointReply(current, false, settings), {
    kind: 'warn',
    judged: 1,
    answered: 0,
    rate: 0,
  });
  assert.deepEqual(current, record({ judged: 1 }));
});

test('the 2nd checkpoint ignored with a rate under 0.5 escalates and holds the 1st turn', () => {
  const current = record({ judged: 1 });
  assert.deepEqual(judgeCheckpointReply(current, false, settings), {
    kind: 'escalate',
    judged: 2,
    answered: 0,
    rate: 0,
    minResponseRate: 0.5,
  });
  assert.deepEqual(current, record({ judged: 2, escalated: true, heldTurns: 1 }));
});

test('a rate of exactly 0.5 does not escalate: it warns', () => {
  const current = record({ judged: 1, answered: 1 });
  assert.deepEqual(judgeCheckpointReply(current, false, settings), {
    kind: 'warn',
    judged: 2,
    answered: 1,
    rate: 0.5,
  });
  assert.deepEqual(current, record({ judged: 2, answered: 1 }));
});

test('a rate under 0.5 escalates at exactly the minimum of judged checkpoints, not one before', () => {
  const strict: CheckpointEscalationSettings = { ...settings, minCheckpoints: 3 };
  const before = record({ judged: 1 });
  assert.deepEqual(judgeCheckpointReply(before, false, strict), {
    kind: 'warn',
    judged: 2,
    answered: 0,
    rate: 0,
  });
  assert.deepEqual(judgeCheckpointReply(before, false, strict), {
    kind: 'escalate',
    judged: 3,
    answered: 0,
    rate: 0,
    minResponseRate: 0.5,
  });
});

test('held turns: answering clears them (counted answered, not judged again); ignoring adds one, and the 3rd in a row stops', () => {
  const answering = record({ judged: 2, escalated: true, heldTurns: 2 });
  assert.deepEqual(judgeCheckpointReply(answering, true, settings), { kind: 'none' });
  assert.deepEqual(answering, record({ judged: 2, answered: 1, escalated: true, heldTurns: 0 }));

  const ignoring = record({ judged: 2, escalated: true, heldTurns: 1 });
  assert.deepEqual(judgeCheckpointReply(ignoring, false, settings), { kind: 'none' });
  assert.deepEqual(ignoring, record({ judged: 2, escalated: true, heldTurns: 2 }));
  assert.deepEqual(judgeCheckpointReply(ignoring, false, settings), {
    kind: 'stop',
    heldTurns: 3,
    judged: 2,
    answered: 0,
  });
  assert.deepEqual(ignoring, record({ judged: 2, escalated: true, heldTurns: 3 }));
});

test('a held turn count only matters while escalated: not escalated with heldTurns set is a new checkpoint', () => {
  const current = record({ judged: 4, answered: 4, heldTurns: 2 });
  assert.deepEqual(judgeCheckpointReply(current, false, settings), {
    kind: 'warn',
    judged: 5,
    answered: 4,
    rate: 0.8,
  });
});

test('escalated with no open checkpoint: an ignored new checkpoint is judged and holds its 1st turn, no verdict; answered, it counts', () => {
  const current = record({ judged: 2, answered: 1, escalated: true });
  assert.deepEqual(judgeCheckpointReply(current, false, settings), { kind: 'none' });
  assert.deepEqual(current, record({ judged: 3, answered: 1, escalated: true, heldTurns: 1 }));
  const answering = record({ judged: 2, escalated: true });
  assert.deepEqual(judgeCheckpointReply(answering, true, settings), { kind: 'none' });
  assert.deepEqual(answering, record({ judged: 3, answered: 1, escalated: true }));
});

test('stopAfterHeldTurns 1: the 1st held turn of a new checkpoint under enforcement stops; 2: it does not', () => {
  const current = record({ judged: 2, answered: 1, escalated: true });
  assert.deepEqual(judgeCheckpointReply(current, false, { ...settings, stopAfterHeldTurns: 1 }), {
    kind: 'stop',
    heldTurns: 1,
    judged: 3,
    answered: 1,
  });
  assert.deepEqual(
    judgeCheckpointReply(record({ escalated: true }), false, { ...settings, stopAfterHeldTurns: 2 }),
    {
      kind: 'none',
    },
  );
  const held = record({ judged: 2, escalated: true, heldTurns: 1 });
  assert.deepEqual(judgeCheckpointReply(held, false, { ...settings, stopAfterHeldTurns: 2 }), {
    kind: 'stop',
    heldTurns: 2,
    judged: 2,
    answered: 0,
  });
});

test('the prompt before enforcement, whole', () => {
  assert.equal(
    checkpointIgnoredPrompt({ judged: 3, answered: 1, escalated: false }),
    '[Checkpoint not answered] You have answered 1 of 3 checkpoints.\n' +
      'Answer the checkpoint above in plain text before your next tool call: does the plan still match the task, what did the recent steps prove or rule out, and what is the next concrete output?\n' +
      'If checkpoints keep going unanswered, keel enforces them: tool calls are held back until you answer.',
  );
});

test('the prompt under enforcement for a repeated answer, whole; repeated false adds nothing', () => {
  assert.equal(
    checkpointIgnoredPrompt({ judged: 4, answered: 2, escalated: true, repeated: true }),
    '[Checkpoint not answered] You have answered 2 of 4 checkpoints.\n' +
      'Your reply repeated what you had already said; a checkpoint answer says what is new since then.\n' +
      'Answer the checkpoint above in plain text before your next tool call: does the plan still match the task, what did the recent steps prove or rule out, and what is the next concrete output?\n' +
      'Checkpoints are now enforced: your tool calls are held back until you answer, and a goal that keeps not answering is stopped.',
  );
  assert.equal(
    checkpointIgnoredPrompt({ judged: 4, answered: 2, escalated: true, repeated: false }),
    checkpointIgnoredPrompt({ judged: 4, answered: 2, escalated: true }),
  );
  assert.equal(checkpointIgnoredPrompt({ judged: 4, answered: 2, escalated: true }).split('\n').length, 3);
});
