import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rememberedDenialFor } from '../../src/workflows/goal/tool-calls/remembered-denials';

/**
 * A goal that has never been denied anything carries no list of remembered denials at all (state
 * from before the list existed, or continued-as-new without one): a call is then simply not a
 * denied one, the same answer as for an empty list, and never a failed workflow task.
 */
test('no remembered denials, undefined or empty: no call matches one', () => {
  const call = { toolName: 'run_command', input: { command: 'rm -rf build' } };
  assert.equal(rememberedDenialFor(undefined, call), undefined);
  assert.equal(rememberedDenialFor([], call), undefined);
});
