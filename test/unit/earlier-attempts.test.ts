import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  attemptsElsewhere,
  claimVerdict,
  earlierAttemptOf,
} from '../../src/workflows/tools/earlier-attempts';

test('a schedule-to-start timeout with no earlier failure and no heartbeat proves the call never started', () => {
  const attempt = earlierAttemptOf({
    host: 'h-a',
    scheduleToStart: true,
    earlierFailure: false,
    heartbeatJournalId: undefined,
  });
  assert.deepEqual(attempt, { host: 'h-a', mayHaveStarted: false });
});

test('an earlier failed attempt, a heartbeat, or another timeout means the call may have started', () => {
  const base = { host: 'h-a', scheduleToStart: true, earlierFailure: false, heartbeatJournalId: undefined };
  assert.equal(earlierAttemptOf({ ...base, earlierFailure: true }).mayHaveStarted, true);
  assert.deepEqual(earlierAttemptOf({ ...base, heartbeatJournalId: 'j1' }), {
    host: 'h-a',
    mayHaveStarted: true,
    journalId: 'j1',
  });
  assert.equal(earlierAttemptOf({ ...base, scheduleToStart: false }).mayHaveStarted, true);
});

test('only attempts on other hosts are declared to the host a call goes to', () => {
  const earlier = [
    { host: 'h-a', mayHaveStarted: false },
    { host: 'h-b', mayHaveStarted: true },
  ];
  assert.deepEqual(attemptsElsewhere(earlier, 'h-a'), [{ host: 'h-b', mayHaveStarted: true }]);
  assert.deepEqual(attemptsElsewhere(earlier, 'h-c'), earlier);
});

test('the journal decides unless an attempt that may have begun used another journal or none it named', () => {
  assert.deepEqual(claimVerdict({ ownJournalId: 'j1', earlier: [] }), { kind: 'journal-decides' });
  assert.deepEqual(
    claimVerdict({
      ownJournalId: 'j1',
      earlier: [
        { host: 'h-a', mayHaveStarted: false },
        { host: 'h-b', mayHaveStarted: true, journalId: 'j1' },
      ],
    }),
    { kind: 'journal-decides' },
  );
  const other = claimVerdict({
    ownJournalId: 'j1',
    earlier: [{ host: 'h-b', mayHaveStarted: true, journalId: 'j2' }],
  });
  assert.equal(other.kind, 'cannot-tell');
  assert.match(other.kind === 'cannot-tell' ? other.reason : '', /host h-b, with its journal \(j2\)/);
  const unnamed = claimVerdict({ ownJournalId: 'j1', earlier: [{ host: 'h-a', mayHaveStarted: true }] });
  assert.equal(unnamed.kind, 'cannot-tell');
});
