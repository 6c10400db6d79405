import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_STAGNATION_SETTINGS,
  detectStagnation,
  stagnationPrompt,
} from '../../src/workflows/principles/stagnation-guard';

const at = (toolCalls: number, modelTurns: number, warned = false) => ({
  toolCalls,
  modelTurns,
  progressAtToolCall: 0,
  progressAtTurn: 0,
  warned,
});

test('defaults: a prompt after 7 calls without progress, a stop at seed 001’s 16 turns', () => {
  assert.equal(DEFAULT_STAGNATION_SETTINGS.warnAfterCalls, 7);
  assert.equal(DEFAULT_STAGNATION_SETTINGS.stopAfterTurns, 16);
  assert.equal(detectStagnation(at(6, 6), DEFAULT_STAGNATION_SETTINGS).kind, 'none');
  const warned = detectStagnation(at(7, 7), DEFAULT_STAGNATION_SETTINGS);
  assert.deepEqual(warned, { kind: 'warn', callsWithoutProgress: 7, turnsWithoutProgress: 7, limit: 7 });
  assert.equal(detectStagnation(at(15, 15, true), DEFAULT_STAGNATION_SETTINGS).kind, 'none');
  assert.deepEqual(detectStagnation(at(16, 16, true), DEFAULT_STAGNATION_SETTINGS), {
    kind: 'stop',
    callsWithoutProgress: 16,
    turnsWithoutProgress: 16,
    limit: 16,
  });
});

test('a stop needs a warning first; a warning is given once per stretch', () => {
  // 16 turns in one jump (say, many calls per turn) still warns first
  assert.equal(detectStagnation(at(30, 16), DEFAULT_STAGNATION_SETTINGS).kind, 'warn');
  assert.equal(detectStagnation(at(10, 10, true), DEFAULT_STAGNATION_SETTINGS).kind, 'none');
});

test('progress moves the start of the stretch', () => {
  const input = { toolCalls: 20, modelTurns: 20, progressAtToolCall: 15, progressAtTurn: 15, warned: false };
  assert.equal(detectStagnation(input, DEFAULT_STAGNATION_SETTINGS).kind, 'none');
});

test('switched off, or limits of 0 behaviour: nothing fires', () => {
  assert.equal(
    detectStagnation(at(50, 50, true), { ...DEFAULT_STAGNATION_SETTINGS, enabled: false }).kind,
    'none',
  );
});

test('the prompt says how long, what counts as progress, and what happens next', () => {
  const prompt = stagnationPrompt({
    callsWithoutProgress: 7,
    turnsWithoutProgress: 6,
    stopAfterTurns: 16,
    consequence: 'stops the goal as stuck',
  });
  assert.match(prompt, /last 7 tool calls changed nothing/);
  assert.match(prompt, /At 16 model turns without progress \(now 6\), keel stops the goal as stuck/);
  assert.doesNotMatch(prompt, /npm|cargo|grep/i);
});
