import { test } from 'node:test';
import assert from 'node:assert/strict';
import { main } from '../../src/cli/main';
import { duration, MAX_DURATION_MS } from '../../src/cli/flag-parsers';
import { untilTime } from '../../src/cli/approval-commands';

/** Issue 46: `--approval-timeout 99999999h` was taken (a deadline in the year 13434). */

test('a duration flag takes up to 365 days, and valid durations as before', () => {
  assert.equal(duration('24h'), 86_400_000);
  assert.equal(duration('365d'), MAX_DURATION_MS);
  assert.equal(MAX_DURATION_MS, 365 * 24 * 3_600_000);
  assert.throws(() => duration('366d'), /must be at most 365d/);
  assert.throws(() => duration('99999999h'), /must be at most 365d/);
});

test('keel run --approval-timeout 99999999h: one line naming the flag, exit 2', async () => {
  const written: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = (chunk: string) => written.push(String(chunk)) > 0;
  try {
    const argv = ['run', 'a goal', '--workspace', '.', '--approval-timeout', '99999999h'];
    assert.equal(await main(['--address', '127.0.0.1:1', ...argv]), 2);
  } finally {
    process.stderr.write = write;
  }
  assert.deepEqual(written, [
    "keel: option '--approval-timeout <duration>' argument '99999999h' is invalid. must be at most 365d\n",
  ]);
});

test('keel rules --until: a duration past a year is refused, an ISO time is not', () => {
  assert.throws(() => untilTime('99999999h', 0), /^CliError: --until takes a duration of at most 365d/);
  assert.equal(untilTime('2h', 0), '1970-01-01T02:00:00.000Z');
  assert.equal(untilTime('2100-01-01T00:00:00Z', 0), '2100-01-01T00:00:00.000Z');
});
