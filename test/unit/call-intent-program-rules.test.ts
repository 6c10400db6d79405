import { test } from 'node:test';
import assert from 'node:assert/strict';
import { intentOf, sameIntent } from '../../src/workflows/principles/call-intent';

/**
 * Call intent and the word that names the program to run rather than what a call is about: in
 * the recorded trajectories `pip install pytest -q` and `python -m pytest tests/…` shared the
 * target `pytest` (542 pairs of different commands in one run), so a human's "do not ask again"
 * on installing pytest refused every test run.
 */

const shell = (command: string) => intentOf('run_command', { command });
const targetsOf = (command: string) => shell(command).targets;

test('python -m MODULE: the module is the program, not a target, so installing pytest and running it are not one intent', () => {
  assert.deepEqual(targetsOf('python -m pytest tests/test_a.py -xv'), ['tests/test_a.py']);
  assert.deepEqual(targetsOf('/usr/bin/python3.12 -m http.server 8000 -d site'), ['site']);
  assert.deepEqual(targetsOf('pip install pytest'), ['install', 'pytest']);
  assert.equal(sameIntent(shell('pip install pytest -q'), shell('python -m pytest tests/test_a.py')), false);
  // Only python's -m: another program's -m value is a target as before.
  assert.deepEqual(targetsOf('git commit -m fix'), ['commit', 'fix']);
});
