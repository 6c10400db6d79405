import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main';
import { ExitCode } from '../../src/cli/exit-codes';
import { notifyChannels, notifyEmails, notifyInput, notifyReminder } from '../../src/cli/notify-flags';
import { tempDirectory } from '../support/temp-directory';

/** Issue 46: `keel run --notify/--notify-email/--notify-reminder` as goal input `notify`. */

async function run(argv: string[]): Promise<{ code: number; stderr: string }> {
  const written: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk: string) => written.push(String(chunk)) > 0;
  try {
    // An address nothing listens on: a bad flag must be refused before any connection.
    const code = await main(['--address', '127.0.0.1:1', ...argv]);
    return { code, stderr: written.join('') };
  } finally {
    process.stderr.write = write;
  }
}

test('the flags as goal input: names and addresses once each, the reminder parsed', () => {
  assert.deepEqual(notifyChannels('team-a, oncall', notifyChannels('team-a')), ['team-a', 'oncall']);
  assert.deepEqual(notifyEmails('ann@example.com,bob@example.com'), ['ann@example.com', 'bob@example.com']);
  assert.deepEqual(notifyReminder('30m'), { beforeMs: 1_800_000 });
  assert.deepEqual(notifyReminder('25%'), { share: 0.25 });
  assert.equal(notifyReminder('off'), 'off');
  assert.deepEqual(notifyInput({ notify: [], notifyEmail: [] }), {});
  assert.deepEqual(
    notifyInput({ notify: ['team-a'], notifyEmail: ['ann@example.com'], notifyReminder: 'off' }),
    { notify: { channels: ['team-a'], emailTo: ['ann@example.com'], reminder: 'off' } },
  );
});

test('a bad --notify, --notify-email or --notify-reminder is one line, exit 2', async () => {
  const workspace = tempDirectory('keel-notify-flags-');
  const cases: [string[], RegExp][] = [
    [
      ['--notify', 'team a'],
      /^keel: option '--notify <channel>' argument 'team a' is invalid\. "team a" is not a channel name/,
    ],
    [['--notify', 'slack'], /"slack" is the worker's own channel/],
    [['--notify', ','], /argument ',' is invalid\. name at least one/],
    [
      ['--notify-email', 'ann'],
      /^keel: option '--notify-email <address>' argument 'ann' is invalid\. "ann" is not a plain email address/,
    ],
    [
      ['--notify-reminder', 'soon'],
      /^keel: option '--notify-reminder <lead>' argument 'soon' is invalid\. must be a share of the wait/,
    ],
    [['--notify-reminder', '100%'], /argument '100%' is invalid/],
    [
      ['--notify', 'a,b,c,d,e,f,g,h,i,j,k'],
      /^keel: invalid goal input: notify\.channels: Too big: expected array to have <=10 items/,
    ],
  ];
  for (const [flags, stderr] of cases) {
    const result = await run(['run', '--workspace', workspace, ...flags, 'a goal']);
    assert.equal(result.code, ExitCode.BadInput, `${flags.join(' ')}: ${result.stderr}`);
    assert.match(result.stderr, stderr, flags.join(' '));
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
  }
});
