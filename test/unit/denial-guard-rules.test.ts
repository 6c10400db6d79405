import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { CallIntent } from '../../src/workflows/principles/call-intent';
import {
  DEFAULT_DENIAL_SETTINGS,
  deniedIntentSchema,
  denialPrompt,
  MAX_REMEMBERED_INTENTS,
  observeDenial,
  type DeniedIntent,
} from '../../src/workflows/principles/denial-guard';

/**
 * The denial guard's rules (issue 27: mutation testing; it had no unit test of its own, only the
 * guards' tests through guards.ts): a warning at the first denial of an intent, a stop at the
 * third once the model has read it, the same intent in other words counted as one, the newest 20
 * intents remembered, and the prompt's whole text.
 */

const build: CallIntent = { tool: 'run_command', targets: ['build'], call: '' };
/** The same intent in other words: the same tool on a target in common (call-intent.ts). */
const buildAndDist: CallIntent = { tool: 'run_command', targets: ['build', 'dist'], call: '' };
const read = () => true;
const unread = () => false;

test('the defaults: on, a stop at 3 denials of one intent; 20 intents remembered', () => {
  assert.deepEqual(DEFAULT_DENIAL_SETTINGS, { enabled: true, stopAfterDenials: 3 });
  assert.equal(MAX_REMEMBERED_INTENTS, 20);
});

test('a denied intent is remembered with a positive whole count', () => {
  assert.deepEqual(deniedIntentSchema.parse({ intent: build, denials: 1 }), { intent: build, denials: 1 });
  for (const denials of [0, -1, 1.5]) {
    assert.equal(
      deniedIntentSchema.safeParse({ intent: build, denials }).success,
      false,
      `denials ${denials}`,
    );
  }
});

test('the first denial warns; the 2nd does not stop; the 3rd stops once the warning was read', () => {
  const denied: DeniedIntent[] = [];
  const settings = DEFAULT_DENIAL_SETTINGS;
  assert.deepEqual(observeDenial(denied, build, settings, read), { kind: 'warn', denials: 1, intent: build });
  assert.deepEqual(observeDenial(denied, build, settings, read), { kind: 'none', denials: 2 });
  assert.deepEqual(observeDenial(denied, build, settings, read), { kind: 'stop', denials: 3, intent: build });
  assert.deepEqual(denied, [{ intent: build, denials: 3 }]);
});

test('the 3rd denial does not stop while the warning is unread; a later one stops once it is read', () => {
  const denied: DeniedIntent[] = [{ intent: build, denials: 2 }];
  const settings = DEFAULT_DENIAL_SETTINGS;
  assert.deepEqual(observeDenial(denied, build, settings, unread), { kind: 'none', denials: 3 });
  assert.deepEqual(observeDenial(denied, build, settings, read), { kind: 'stop', denials: 4, intent: build });
});

test('the same intent in other words counts as one; the verdict and the read check name the intent first denied', () => {
  const denied: DeniedIntent[] = [{ intent: build, denials: 2 }];
  const asked: CallIntent[] = [];
  const verdict = observeDenial(denied, buildAndDist, DEFAULT_DENIAL_SETTINGS, (intent) => {
    asked.push(intent);
    return true;
  });
  assert.deepEqual(verdict, { kind: 'stop', denials: 3, intent: build });
  assert.deepEqual(asked, [build]);
  assert.deepEqual(denied, [{ intent: build, denials: 3 }]);
});

test('another intent is counted on its own, and warned about at its own first denial', () => {
  const other: CallIntent = { tool: 'write_file', targets: ['build'], call: '' };
  const denied: DeniedIntent[] = [{ intent: build, denials: 2 }];
  assert.deepEqual(observeDenial(denied, other, DEFAULT_DENIAL_SETTINGS, read), {
    kind: 'warn',
    denials: 1,
    intent: other,
  });
  assert.deepEqual(denied, [
    { intent: build, denials: 2 },
    { intent: other, denials: 1 },
  ]);
});

test('the newest 20 intents are remembered: the 21st pushes out the oldest, the 20th does not', () => {
  const intent = (index: number): CallIntent => ({
    tool: 'run_command',
    targets: [`dir-${index}`],
    call: '',
  });
  const denied: DeniedIntent[] = [];
  for (let index = 1; index <= 20; index++)
    observeDenial(denied, intent(index), DEFAULT_DENIAL_SETTINGS, read);
  assert.deepEqual(
    denied.map((entry) => entry.intent.targets[0]),
    Array.from({ length: 20 }, (_, index) => `dir-${index + 1}`),
  );
  observeDenial(denied, intent(21), DEFAULT_DENIAL_SETTINGS, read);
  assert.deepEqual(
    denied.map((entry) => entry.intent.targets[0]),
    Array.from({ length: 20 }, (_, index) => `dir-${index + 2}`),
  );
  // The one pushed out is new again: warned at its first denial.
  assert.deepEqual(observeDenial(denied, intent(1), DEFAULT_DENIAL_SETTINGS, read), {
    kind: 'warn',
    denials: 1,
    intent: intent(1),
  });
});

test('switched off: denials are still counted, but neither warned about nor stopped', () => {
  const off = { ...DEFAULT_DENIAL_SETTINGS, enabled: false };
  const denied: DeniedIntent[] = [];
  assert.deepEqual(observeDenial(denied, build, off, read), { kind: 'none', denials: 1 });
  assert.deepEqual(observeDenial(denied, build, off, read), { kind: 'none', denials: 2 });
  assert.deepEqual(observeDenial(denied, build, off, read), { kind: 'none', denials: 3 });
  assert.deepEqual(denied, [{ intent: build, denials: 3 }]);
});

test('a limit of 2 stops at the 2nd denial once read; a limit of 1 still warns first', () => {
  assert.deepEqual(
    observeDenial([{ intent: build, denials: 1 }], build, { enabled: true, stopAfterDenials: 2 }, read),
    { kind: 'stop', denials: 2, intent: build },
  );
  assert.deepEqual(observeDenial([], build, { enabled: true, stopAfterDenials: 1 }, read), {
    kind: 'warn',
    denials: 1,
    intent: build,
  });
});

test('the denial prompt, whole: what did not run, not to ask again in any words, what to do, the stop at its number', () => {
  assert.equal(
    denialPrompt({
      summary: 'run_command: rm -rf build',
      intentText: 'run_command on build',
      stopAfterDenials: 3,
      consequence: 'stops the goal as stuck',
    }),
    [
      '[Denied] This call was not approved, and nothing of it reached the workspace: run_command: rm -rf build',
      'Do not ask for it again, and do not ask for the same thing another way (run_command on build): what was refused is what the call would do, so any other tool, a script or another command that would delete or overwrite the same paths waits for a human too and counts as asking again.',
      'Reach the goal without it, or give your final answer and say plainly what is blocked and what a human would need to do.',
      'If this request is denied 3 times, keel stops the goal as stuck.',
    ].join('\n'),
  );
});
