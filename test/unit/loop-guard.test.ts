import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  callKey,
  DEFAULT_LOOP_SETTINGS,
  detectLoop,
  loopPrompt,
  normalizedInput,
  remember,
  resultDigest,
  type RememberedCall,
} from '../../src/workflows/principles/loop-guard';

const call = (key: string, atToolCall: number, result = 'same'): RememberedCall => ({
  key,
  result: resultDigest(result),
  summary: `read_file: ${key}`,
  atToolCall,
});

/** Feeds calls one by one as the workflow does, returning each verdict's kind. */
function feed(calls: RememberedCall[], settings = DEFAULT_LOOP_SETTINGS): string[] {
  let recent: RememberedCall[] = [];
  const warned: string[] = [];
  return calls.map((next) => {
    recent = remember(recent, next, settings.window);
    const verdict = detectLoop({ recent, settings, warnedKeys: warned });
    if (verdict.kind === 'warn') warned.push(verdict.key);
    return verdict.kind;
  });
}

test('normalized input: key order, surrounding and inner whitespace and the hypothesis do not make a new call', () => {
  assert.equal(
    normalizedInput({ path: ' src/a.ts ', limit: 10, hypothesis: 'I expect a function' }),
    normalizedInput({ limit: 10, path: 'src/a.ts' }),
  );
  assert.equal(normalizedInput({ command: 'ls   -la' }), normalizedInput({ command: 'ls -la' }));
  assert.notEqual(normalizedInput({ path: 'a.ts' }), normalizedInput({ path: 'b.ts' }));
  // only the top-level hypothesis is ignored: a nested field of that name is part of the call
  assert.notEqual(normalizedInput({ options: { hypothesis: 'x' } }), normalizedInput({ options: {} }));
  assert.notEqual(callKey('read_file', { path: 'a' }), callKey('list_dir', { path: 'a' }));
});

test('result digests tell different results apart and are stable', () => {
  assert.equal(resultDigest('hello'), resultDigest('hello'));
  assert.notEqual(resultDigest('hello'), resultDigest('hellp'));
  assert.notEqual(resultDigest(''), resultDigest(' '));
});

test('the same call with the same result: a prompt at the 3rd, a stop at the 5th', () => {
  const kinds = feed([1, 2, 3, 4, 5].map((n) => call('a', n)));
  assert.deepEqual(kinds, ['none', 'none', 'warn', 'none', 'stop']);
});

test('varied calls never trip the guard, however many there are', () => {
  const kinds = feed(Array.from({ length: 40 }, (_, index) => call(`file-${index}`, index + 1)));
  assert.ok(kinds.every((kind) => kind === 'none'));
});

test('a repeated call whose result changes is no loop (a poll), unless results are not compared', () => {
  const polls = [1, 2, 3, 4, 5, 6].map((n) => call('status', n, `progress ${n * 10}%`));
  assert.ok(feed(polls).every((kind) => kind === 'none'));
  assert.deepEqual(feed(polls, { ...DEFAULT_LOOP_SETTINGS, matchResults: false }).slice(0, 5), [
    'none',
    'none',
    'warn',
    'none',
    'stop',
  ]);
});

test('repeats outside the window are forgotten: re-reading a file now and then is fine', () => {
  const calls: RememberedCall[] = [];
  for (let index = 0; index < 40; index++) {
    calls.push(index % 6 === 0 ? call('config', index + 1) : call(`file-${index}`, index + 1));
  }
  assert.ok(feed(calls).every((kind) => kind === 'none'));
});

test('a call never warned about is warned first, even when one turn jumps past the stop', () => {
  let recent: RememberedCall[] = [];
  for (const n of [1, 2, 3, 4, 5, 6]) recent = remember(recent, call('a', n), 10);
  const verdict = detectLoop({ recent, settings: DEFAULT_LOOP_SETTINGS, warnedKeys: [] });
  assert.ok(verdict.kind === 'warn');
  assert.equal(verdict.repeats, 6);
  assert.equal(verdict.firstAtToolCall, 1);
});

test('switched off, nothing is detected', () => {
  const kinds = feed(
    [1, 2, 3, 4, 5].map((n) => call('a', n)),
    { ...DEFAULT_LOOP_SETTINGS, enabled: false },
  );
  assert.ok(kinds.every((kind) => kind === 'none'));
});

test('the prompt names the call, the count and the next actions (the tool’s own when it failed)', () => {
  const failing = loopPrompt({
    summary: 'read_file: missing.txt',
    repeats: 3,
    window: 10,
    sameResult: true,
    failed: true,
    candidates: ['list_dir to see what exists'],
    stopAt: 5,
    consequence: 'stops the goal as stuck',
  });
  assert.match(failing, /same call 3 times in your last 10 tool calls, failing the same way each time/);
  assert.match(failing, /read_file: missing\.txt/);
  assert.match(failing, /1\. list_dir to see what exists/);
  assert.match(failing, /5 times, keel stops the goal as stuck/);
  const succeeding = loopPrompt({
    summary: 'read_file: a.txt',
    repeats: 3,
    window: 10,
    sameResult: true,
    failed: false,
    candidates: [],
    stopAt: 5,
    consequence: 'fails the active plan step and plans again',
  });
  assert.match(succeeding, /with the same result each time/);
  assert.match(succeeding, /1\. Use the result you already have/);
  assert.match(succeeding, /fails the active plan step/);
});
