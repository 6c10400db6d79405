import { test } from 'node:test';
import assert from 'node:assert/strict';
import { userInfo } from 'node:os';
import { defaultUserName } from '../../src/client/os-user';

/** Issue 46: with $USER unset, decisions were recorded as "cli"; they name the OS user now. */

test('$USER when set', () => {
  assert.equal(
    defaultUserName({ USER: 'alice' }, () => 'bob'),
    'alice',
  );
});

test('without $USER, the OS user', () => {
  assert.equal(
    defaultUserName({}, () => 'bob'),
    'bob',
  );
  assert.equal(defaultUserName({}), userInfo().username, 'the real lookup by default');
});

test('"cli" only when the OS names nobody', () => {
  const throws = () => {
    throw new Error('ENOENT: no passwd entry');
  };
  assert.equal(defaultUserName({}, throws), 'cli');
  assert.equal(
    defaultUserName({}, () => ''),
    'cli',
  );
});

test('a review sent without a name is recorded as the OS user when $USER is unset', async () => {
  const { submitReview } = await import('../../src/client/goal-client');
  const sent: unknown[] = [];
  const handle = {
    executeUpdate: (_update: unknown, options: { args: unknown[] }) => {
      sent.push(...options.args);
      return Promise.resolve({ accepted: true });
    },
  } as unknown as Parameters<typeof submitReview>[0];
  const user = process.env.USER;
  delete process.env.USER;
  try {
    await submitReview(handle, { accepted: true });
  } finally {
    if (user !== undefined) process.env.USER = user;
  }
  assert.deepEqual(sent, [{ accepted: true, reviewer: userInfo().username, notes: '' }]);
});
