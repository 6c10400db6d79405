import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DEFAULT_JUDGE_SETTINGS,
  decideOnVerdict,
  initialJudgeState,
  JudgeAction,
  judgePrompt,
  judgeSettingsSchema,
  judgeTokenShare,
  judgeWatches,
  firstVerdictEstimate,
  verdictAffordable,
  judgeWarning,
  stretchDue,
  type JudgeVerdict,
} from '../../src/workflows/principles/progress-judge';

const settings = DEFAULT_JUDGE_SETTINGS;
const no = (confidence = 0.9, reason = 'only new scratch files'): JudgeVerdict => ({
  advanced: false,
  confidence,
  reason,
});
const yes: JudgeVerdict = { advanced: true, confidence: 0.9, reason: 'renamed old() in two modules' };
const consequence = 'stops the goal as stuck';

function judge(state = initialJudgeState({ toolCalls: 0 })) {
  let toolCalls = state.stretchFrom;
  let modelTurns = 0;
  return {
    state,
    verdict(verdict: JudgeVerdict | undefined) {
      toolCalls += settings.everyCalls;
      modelTurns += settings.everyCalls;
      return decideOnVerdict(state, settings, { verdict, toolCalls, modelTurns, consequence });
    },
  };
}

test('defaults: on, a cheaper model, a verdict every 4 calls, a "no" counts from 0.7 confidence', () => {
  assert.deepEqual(DEFAULT_JUDGE_SETTINGS, {
    enabled: true,
    model: 'claude-haiku-4-5',
    everyCalls: 4,
    minConfidence: 0.7,
    maxShare: 0.05,
  });
  assert.equal(judgeSettingsSchema.safeParse({ everyCalls: 1 }).success, false);
  assert.equal(judgeSettingsSchema.safeParse({ minConfidence: 0 }).success, false);
  assert.equal(judgeSettingsSchema.safeParse({ surprise: true }).success, false);
});

test('a confident no warns; a second in a row stops, naming the warning', () => {
  const run = judge();
  const first = run.verdict(no());
  assert.equal(first.action, JudgeAction.Warn);
  assert.equal(first.data.streak, 1);
  assert.equal(first.prompt, judgeWarning(4, 'only new scratch files', consequence));
  assert.match(first.summary, /the last 4 calls advanced no success criterion \(only new scratch files\)/);
  assert.equal(run.state.warnedAtTurn, 4);
  const second = run.verdict(no());
  assert.equal(second.action, JudgeAction.Stop);
  assert.equal(second.prompt, undefined);
  assert.match(second.summary, /after a warning at turn 4/);
  assert.deepEqual(
    { streak: second.data.streak, warnedAtTurn: second.data.warnedAtTurn, from: second.data.fromToolCall },
    { streak: 2, warnedAtTurn: 4, from: 4 },
  );
});

test('a yes resets the streak: the next no warns again instead of stopping', () => {
  const run = judge();
  assert.equal(run.verdict(no()).action, JudgeAction.Warn);
  const reset = run.verdict(yes);
  assert.equal(reset.action, JudgeAction.Reset);
  assert.match(reset.summary, /advanced/);
  assert.equal(run.state.noStreak, 0);
  assert.equal(run.verdict(no()).action, JudgeAction.Warn);
  assert.equal(run.verdict(no()).action, JudgeAction.Stop);
});

test('a low-confidence no resets too; a no exactly at the threshold counts', () => {
  const run = judge();
  assert.equal(run.verdict(no()).action, JudgeAction.Warn);
  const doubtful = run.verdict(no(0.69));
  assert.equal(doubtful.action, JudgeAction.Reset);
  assert.match(doubtful.summary, /a doubtful no \(confidence 0\.69\)/);
  assert.equal(run.state.noStreak, 0);
  assert.equal(run.verdict(no(0.7)).action, JudgeAction.Warn);
  assert.equal(run.verdict(no(0.7)).action, JudgeAction.Stop);
});

test('a failed judge call neither counts nor resets, and the next stretch begins', () => {
  const run = judge();
  assert.equal(run.verdict(no()).action, JudgeAction.Warn);
  const none = run.verdict(undefined);
  assert.equal(none.action, JudgeAction.None);
  assert.equal(run.state.noStreak, 1);
  assert.equal(run.state.stretchFrom, 8);
  assert.equal(run.state.verdicts, 2);
  assert.equal(run.verdict(no()).action, JudgeAction.Stop);
});

test('a stretch is due after everyCalls calls, never when off, and a completed plan step starts a new one', () => {
  const state = initialJudgeState({ toolCalls: 2, progressMark: 0 });
  assert.equal(stretchDue(state, settings, { toolCalls: 5, progressMark: 0 }), false);
  assert.equal(stretchDue(state, settings, { toolCalls: 6, progressMark: 0 }), true);
  assert.equal(stretchDue(state, { ...settings, enabled: false }, { toolCalls: 60, progressMark: 0 }), false);
  state.noStreak = 1;
  assert.equal(stretchDue(state, settings, { toolCalls: 7, progressMark: 1 }), false);
  assert.deepEqual(
    { from: state.stretchFrom, streak: state.noStreak, mark: state.progressMark },
    { from: 7, streak: 0, mark: 1 },
  );
  assert.equal(stretchDue(state, settings, { toolCalls: 10, progressMark: 1 }), false);
  assert.equal(stretchDue(state, settings, { toolCalls: 11, progressMark: 1 }), true);
  // Without a plan there is no mark: only the count decides.
  const unplanned = initialJudgeState({ toolCalls: 0 });
  assert.equal(stretchDue(unplanned, settings, { toolCalls: 4 }), true);
});

test('the prompt holds the goal, each criterion and each call with a short result excerpt', () => {
  const prompt = judgePrompt({
    goal: 'ROUTE-ME rename old() to renamed()',
    successCriteria: ['no old() left in src/', 'tests pass'],
    calls: [
      { toolName: 'write_file', summary: 'write attempt-3.txt', resultText: 'wrote 12 bytes', failed: false },
      { toolName: 'run_command', summary: 'npm test', resultText: 'x'.repeat(500), failed: true },
    ],
  });
  assert.match(prompt, /## Goal\nROUTE-ME rename old\(\) to renamed\(\)/);
  assert.match(prompt, /- no old\(\) left in src\/\n- tests pass/);
  assert.match(prompt, /1\. write_file: write attempt-3\.txt → wrote 12 bytes/);
  assert.match(prompt, /2\. run_command: npm test \[failed\] → x{160}…/);
  assert.doesNotMatch(prompt, /x{161}/);
});

test('the judge’s share of the goal’s tokens', () => {
  assert.equal(judgeTokenShare(0, 0), 0);
  assert.equal(judgeTokenShare(50, 1000), 0.05);
});

test('the judge watches only goals with success criteria, and never when off', () => {
  assert.equal(judgeWatches(settings, ['tests pass']), true);
  assert.equal(judgeWatches(settings, []), false);
  assert.equal(judgeWatches({ ...settings, enabled: false }, ['tests pass']), false);
});

test('a verdict is asked for only while the judge stays under 5% of the goal’s tokens', () => {
  assert.equal(firstVerdictEstimate(900), 450);
  const fresh = { tokens: 0, verdicts: 0 };
  // 450 of 450 + 8,550 is exactly 5%: affordable; one token less spent by the goal is not.
  assert.equal(verdictAffordable({ state: fresh, settings, goalTokens: 8_550, promptChars: 900 }), true);
  assert.equal(verdictAffordable({ state: fresh, settings, goalTokens: 8_549, promptChars: 900 }), false);
  // Later verdicts are estimated as the average of the earlier ones, not from the prompt.
  const judged = { tokens: 1_000, verdicts: 2 };
  assert.equal(verdictAffordable({ state: judged, settings, goalTokens: 29_500, promptChars: 1e6 }), true);
  assert.equal(verdictAffordable({ state: judged, settings, goalTokens: 29_499, promptChars: 1e6 }), false);
  assert.equal(
    verdictAffordable({ state: judged, settings: { maxShare: 0.5 }, goalTokens: 2_500, promptChars: 0 }),
    true,
  );
});
