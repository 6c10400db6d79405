import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  checkpointIgnoredPrompt,
  DEFAULT_CHECKPOINT_ESCALATION_SETTINGS as settings,
  initialCheckpointRecord,
  judgeCheckpointReply,
} from '../../src/workflows/principles/checkpoint-escalation';

test('answered checkpoints change nothing', () => {
  const record = initialCheckpointRecord();
  for (let index = 0; index < 5; index++)
    assert.equal(judgeCheckpointReply(record, true, settings).kind, 'none');
  assert.deepEqual(record, { judged: 5, answered: 5, escalated: false, heldTurns: 0 });
});

test('an ignorer: a prompt at the first ignored checkpoint, enforcement at the second, a stop after 3 held turns', () => {
  const record = initialCheckpointRecord();
  assert.deepEqual(judgeCheckpointReply(record, false, settings), {
    kind: 'warn',
    judged: 1,
    answered: 0,
    rate: 0,
  });
  assert.deepEqual(judgeCheckpointReply(record, false, settings), {
    kind: 'escalate',
    judged: 2,
    answered: 0,
    rate: 0,
    minResponseRate: 0.5,
  });
  assert.equal(record.escalated, true);
  assert.equal(record.heldTurns, 1); // the escalating reply's calls are the first held
  assert.equal(judgeCheckpointReply(record, false, settings).kind, 'none');
  assert.deepEqual(judgeCheckpointReply(record, false, settings), {
    kind: 'stop',
    heldTurns: 3,
    judged: 2,
    answered: 0,
  });
});

test('a good rate is not escalated by one miss; answering under enforcement releases it', () => {
  const record = initialCheckpointRecord();
  judgeCheckpointReply(record, true, settings);
  judgeCheckpointReply(record, true, settings);
  assert.equal(judgeCheckpointReply(record, false, settings).kind, 'warn'); // 2 of 3 answered
  assert.equal(record.escalated, false);
  const enforced = { judged: 2, answered: 0, escalated: true, heldTurns: 1 };
  assert.equal(judgeCheckpointReply(enforced, true, settings).kind, 'none');
  assert.deepEqual(enforced, { judged: 2, answered: 1, escalated: true, heldTurns: 0 });
});

test('switched off: never a verdict', () => {
  const record = initialCheckpointRecord();
  for (let index = 0; index < 6; index++) {
    assert.equal(judgeCheckpointReply(record, false, { ...settings, enabled: false }).kind, 'none');
  }
});

test('the prompt counts the answers and says what enforcement means', () => {
  assert.match(checkpointIgnoredPrompt({ judged: 2, answered: 0, escalated: true }), /answered 0 of 2/);
  assert.match(checkpointIgnoredPrompt({ judged: 2, answered: 0, escalated: true }), /now enforced/);
  assert.match(checkpointIgnoredPrompt({ judged: 1, answered: 0, escalated: false }), /keel enforces them/);
});
