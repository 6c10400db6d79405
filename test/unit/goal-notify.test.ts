import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseGoalInput } from '../../src/workflows/goal/lifecycle/input';
import { goalChannels, goalReminder } from '../../src/workflows/approvals/notifications';

/** Issue 46: a goal's own channels (goal input `notify`), added to its worker's. */

const base = { goal: 'x', workspace: '/tmp' };

test('notify is optional, and a goal without it keeps the input it always had', () => {
  const parsed = parseGoalInput(base);
  assert.ok(parsed.ok);
  assert.equal('notify' in parsed.config, false);
});

test('a goal names channels, recipients and its reminder', () => {
  const parsed = parseGoalInput({
    ...base,
    notify: {
      channels: ['team-a', 'oncall.eu_1'],
      emailTo: ['ann@example.com'],
      reminder: { beforeMs: 60_000 },
    },
  });
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.message);
  assert.deepEqual(parsed.config.notify?.channels, ['team-a', 'oncall.eu_1']);
  const off = parseGoalInput({ ...base, notify: { reminder: 'off' } });
  assert.ok(off.ok && off.config.notify?.reminder === 'off');
});

test('bad notify input is refused in one line naming the field', () => {
  const refused = (notify: unknown, pattern: RegExp) => {
    const parsed = parseGoalInput({ ...base, notify });
    assert.ok(!parsed.ok, JSON.stringify(notify));
    assert.match(parsed.message, pattern);
    assert.equal(parsed.message.includes('\n'), false);
  };
  refused({ channels: ['team a'] }, /notify\.channels\.0: "team a" is not a channel name/);
  refused({ channels: ['webhook'] }, /notify\.channels\.0: "webhook" is the worker's own channel/);
  refused(
    { channels: ['https://hooks.slack.com/services/T/B/X'] },
    /notify\.channels\.0: .* is not a channel name/,
  );
  refused({ channels: Array.from({ length: 11 }, (_, index) => `c${index}`) }, /notify\.channels: Too big/);
  refused({ emailTo: ['Ann <ann@example.com>'] }, /notify\.emailTo\.0: not a plain email address/);
  refused({ reminder: { share: 1 } }, /notify\.reminder/);
  refused({ url: 'https://x' }, /notify: Unrecognized key: "url"/);
});

test("a goal's channels: the worker's own, then the goal's email, then the names it gives, each once", () => {
  const worker = {
    channels: ['webhook', 'slack'] as ('webhook' | 'slack' | 'email')[],
    reminder: { share: 0.2 },
  };
  assert.deepEqual(goalChannels(worker, undefined), ['webhook', 'slack'], 'a goal naming none: the worker’s');
  assert.deepEqual(goalChannels(undefined, undefined), [], 'no worker channel, none named: nothing');
  assert.deepEqual(goalChannels({ channels: [] }, {}), []);
  assert.deepEqual(goalChannels(worker, { channels: ['team-a', 'team-a', 'oncall'] }), [
    'webhook',
    'slack',
    'team-a',
    'oncall',
  ]);
  assert.deepEqual(goalChannels(undefined, { emailTo: ['ann@example.com'] }), ['email']);
  assert.deepEqual(goalChannels({ channels: ['email'] }, { emailTo: ['ann@example.com'] }), ['email']);
  assert.deepEqual(goalChannels(worker, { emailTo: [] }), ['webhook', 'slack']);
});

test("a goal's reminder: its own, else its worker's, else 20% when the worker said nothing", () => {
  const worker = { channels: [], reminder: { beforeMs: 1_000 } };
  assert.deepEqual(goalReminder(worker, undefined), { beforeMs: 1_000 });
  assert.deepEqual(goalReminder(worker, { reminder: { share: 0.5 } }), { share: 0.5 });
  assert.equal(goalReminder(worker, { reminder: 'off' }), undefined);
  assert.equal(goalReminder({ channels: ['slack'] }, {}), undefined, 'the worker turned it off');
  assert.deepEqual(goalReminder(undefined, { channels: ['team-a'] }), { share: 0.2 });
});

test('notify survives the config being parsed again, as a new run after continue-as-new parses it', () => {
  const notify = { channels: ['team-a'], emailTo: ['ann@example.com'], reminder: { share: 0.5 } };
  const first = parseGoalInput({ ...base, notify });
  assert.ok(first.ok);
  const again = parseGoalInput(first.config);
  assert.ok(again.ok);
  assert.deepEqual(again.config.notify, notify);
});
