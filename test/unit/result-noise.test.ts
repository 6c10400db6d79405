import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resultFingerprint, withoutNoise } from '../../src/workflows/principles/result-noise';

/** The result normaliser (issue 44): keel's timings, clock times and call ids are not the result. */

test("keel's own timing is noise: two runs of one command that differ only there are the same result", () => {
  assert.equal(withoutNoise('Exit code 0 after 2.1 s.\nbuilding'), 'Exit code 0 after <duration>.\nbuilding');
  assert.equal(
    resultFingerprint('Exit code 1 after 0.4 s.\n3 tests failed'),
    resultFingerprint('Exit code 1 after 12.0 s.\n3 tests failed'),
  );
  assert.notEqual(
    resultFingerprint('Exit code 1 after 0.4 s.\n3 tests failed'),
    resultFingerprint('Exit code 1 after 0.4 s.\n2 tests failed'),
  );
});

test('durations in any common spelling are noise', () => {
  for (const [text, cleaned] of [
    ['took 12ms', 'took <duration>'],
    ['took 12 ms', 'took <duration>'],
    ['Time: 3.40s', 'Time: <duration>'],
    ['in 1.5 sec', 'in <duration>'],
    ['in 2 seconds', 'in <duration>'],
    ['in 1 second', 'in <duration>'],
    ['300µs', '<duration>'],
    ['5 ns', '<duration>'],
    ['30us', '<duration>'],
    ['waited 2 min', 'waited <duration>'],
    ['waited 3 minutes', 'waited <duration>'],
    ['1m20s elapsed', '<duration> elapsed'],
  ] as const)
    assert.equal(withoutNoise(text), cleaned, text);
});

test('timestamps, clock times and call ids are noise', () => {
  assert.equal(withoutNoise('at 2026-12-02T05:37:21.123Z done'), 'at <time> done');
  assert.equal(withoutNoise('at 2026-12-02 05:37:21 done'), 'at <time> done');
  assert.equal(withoutNoise('at 2026-12-02T05:37+01:00 done'), 'at <time> done');
  assert.equal(withoutNoise('on 2026-12-02'), 'on <time>');
  assert.equal(withoutNoise('[05:37:21] build'), '[<time>] build');
  assert.equal(withoutNoise('[5:37:21.5] build'), '[<time>] build');
  assert.equal(withoutNoise('id toolu_01AbCdEf9 ok'), 'id <call-id> ok');
  assert.equal(withoutNoise('id call_abc123XYZ ok'), 'id <call-id> ok');
  assert.equal(withoutNoise('id tool_call_a1b2c3d4 ok'), 'id <call-id> ok');
});

test('what is not a timing stays: progress numbers, counts, words ending in s, short ids', () => {
  for (const text of [
    'build 40% done',
    '12 modules, 3 files',
    '10 sources read',
    'ms-dos 5 sheep',
    'call_me maybe',
    'version 1.2.3',
    'port 8080',
  ])
    assert.equal(withoutNoise(text), text, text);
  assert.notEqual(resultFingerprint('step 41 of 90'), resultFingerprint('step 42 of 90'));
});

test('the fingerprint ignores surrounding whitespace, as results were compared before', () => {
  assert.equal(resultFingerprint('  ok \n'), resultFingerprint('ok'));
});
