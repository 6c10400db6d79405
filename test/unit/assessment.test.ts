import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BeliefSchema,
  DEFAULT_PRIORITY,
  assess,
  assessmentDue,
  assessmentNote,
  beliefPrompt,
  boostedPriority,
  consolidationPlan,
  consolidationTargetChars,
  demotedPriority,
  ineffectiveTools,
  temporalPriorityKey,
  type AssessmentInput,
} from '../../src/workflows/planning/assessment';

const calm: AssessmentInput = {
  cycle: 5,
  lastAssessmentCycle: 0,
  lastProgressCycle: undefined,
  progressSinceLastAssessment: false,
  toolStats: {},
  transcriptChars: 1000,
  contextBudgetChars: 10_000,
  priority: DEFAULT_PRIORITY,
  hasSubGoals: false,
};

function kinds(input: AssessmentInput): string[] {
  return assess(input).adjustments.map((adjustment) => adjustment.kind);
}

test('assessmentDue: every interval cycles, never at cycle 0, interval 0 disables', () => {
  assert.equal(assessmentDue({ cycle: 0 }), false);
  assert.equal(assessmentDue({ cycle: 5 }), true);
  assert.equal(assessmentDue({ cycle: 7 }), false);
  assert.equal(assessmentDue({ cycle: 10 }), true);
  assert.equal(assessmentDue({ cycle: 10, interval: 5 }), true);
  assert.equal(assessmentDue({ cycle: 3, interval: 3 }), true);
  assert.equal(assessmentDue({ cycle: 5, interval: 3 }), false);
  for (const cycle of [0, 5, 7, 10]) assert.equal(assessmentDue({ cycle, interval: 0 }), false);
});

test('nothing notable: no findings, no adjustments, priority unchanged', () => {
  const result = assess(calm);
  assert.deepEqual(result.findings, {
    progressed: false,
    stagnant: false,
    stagnantCycles: 5,
    ineffectiveTools: [],
    memoryPressure: 0.1,
  });
  assert.deepEqual(result.adjustments, []);
  assert.equal(result.priority, DEFAULT_PRIORITY);
});

test('stagnation needs 8 cycles worked and 8 since progress (7 is not enough)', () => {
  assert.equal(assess({ ...calm, cycle: 7 }).findings.stagnant, false);
  assert.equal(assess({ ...calm, cycle: 8 }).findings.stagnant, true);
  assert.equal(assess({ ...calm, cycle: 8 }).findings.stagnantCycles, 8);
  const recent = { ...calm, cycle: 20, lastAssessmentCycle: 15 };
  assert.equal(assess({ ...recent, lastProgressCycle: 13 }).findings.stagnant, false);
  assert.equal(assess({ ...recent, lastProgressCycle: 12 }).findings.stagnant, true);
});

test('progress in the period: boost, never stagnant', () => {
  const flagged = assess({ ...calm, cycle: 20, progressSinceLastAssessment: true });
  assert.equal(flagged.findings.progressed, true);
  assert.equal(flagged.findings.stagnant, false);
  assert.deepEqual(flagged.adjustments, [
    { kind: 'boost-priority', from: 128, to: 148, reason: 'progress since the last assessment' },
  ]);
  assert.equal(flagged.priority, 148);
  // Progress recorded after the last assessment counts even without the flag.
  const recorded = assess({ ...calm, cycle: 10, lastAssessmentCycle: 5, lastProgressCycle: 7 });
  assert.equal(recorded.findings.progressed, true);
  assert.equal(
    assess({ ...calm, cycle: 10, lastAssessmentCycle: 5, lastProgressCycle: 5 }).findings.progressed,
    false,
  );
});

test('boost cap: +20 only below 230, and never past it', () => {
  assert.equal(boostedPriority(200), 220);
  assert.equal(boostedPriority(210), 230);
  assert.equal(boostedPriority(215), 230);
  assert.equal(boostedPriority(229), 230);
  assert.equal(boostedPriority(230), 230);
  assert.equal(boostedPriority(250), 250);
  const atCap = assess({ ...calm, priority: 230, progressSinceLastAssessment: true });
  assert.equal(atCap.priority, 230);
  assert.deepEqual(atCap.adjustments, []);
  const below = assess({ ...calm, priority: 210, progressSinceLastAssessment: true });
  assert.equal(below.priority, 230);
});

test('demotion: −30 when stagnant, saturating at 0', () => {
  const stalled = { ...calm, cycle: 10, hasSubGoals: true };
  assert.equal(demotedPriority(100), 70);
  assert.equal(demotedPriority(20), 0);
  assert.equal(demotedPriority(0), 0);
  assert.deepEqual(assess({ ...stalled, priority: 100 }).adjustments[0], {
    kind: 'demote-priority',
    from: 100,
    to: 70,
    reason: 'no progress for 10 cycles',
  });
  assert.equal(assess({ ...stalled, priority: 20 }).priority, 0);
  const atZero = assess({ ...stalled, priority: 0 });
  assert.equal(atZero.priority, 0);
  assert.deepEqual(atZero.adjustments, []);
});

test('decomposition is suggested when stalled without sub-goals; abandonment at 16 stagnant cycles', () => {
  assert.deepEqual(kinds({ ...calm, cycle: 10 }), ['demote-priority', 'suggest-decomposition']);
  assert.deepEqual(kinds({ ...calm, cycle: 10, hasSubGoals: true }), ['demote-priority']);
  assert.deepEqual(kinds({ ...calm, cycle: 15, hasSubGoals: true }), ['demote-priority']);
  assert.deepEqual(kinds({ ...calm, cycle: 16, hasSubGoals: true }), ['demote-priority', 'suggest-abandon']);
  assert.deepEqual(kinds({ ...calm, cycle: 30, lastAssessmentCycle: 25, lastProgressCycle: 15 }), [
    'demote-priority',
    'suggest-decomposition',
  ]);
  assert.deepEqual(kinds({ ...calm, cycle: 30, lastAssessmentCycle: 25, lastProgressCycle: 14 }), [
    'demote-priority',
    'suggest-decomposition',
    'suggest-abandon',
  ]);
});

test('ineffective tools: at least 2 calls and a success rate below 0.3', () => {
  const toolStats = {
    once: { calls: 1, successes: 0 },
    quarter: { calls: 4, successes: 1 },
    half: { calls: 2, successes: 1 },
    twoFailures: { calls: 2, successes: 0 },
    third: { calls: 10, successes: 3 },
  };
  assert.deepEqual(ineffectiveTools(toolStats), ['quarter', 'twoFailures']);
  assert.deepEqual(assess({ ...calm, toolStats }).findings.ineffectiveTools, ['quarter', 'twoFailures']);
});

test('consolidation above 0.9 pressure, aiming below 0.7', () => {
  assert.deepEqual(kinds({ ...calm, transcriptChars: 9000 }), []);
  const high = assess({ ...calm, transcriptChars: 9100 });
  assert.equal(high.findings.memoryPressure, 0.91);
  assert.deepEqual(high.adjustments, [
    { kind: 'consolidate', targetChars: 7000, reason: 'transcript fills 91% of the context budget' },
  ]);
  assert.equal(consolidationTargetChars(1000), 700);
  assert.equal(consolidationTargetChars(999), 699);
  assert.equal(assess({ ...calm, contextBudgetChars: 0 }).findings.memoryPressure, 0);
});

test('consolidationPlan condenses the oldest turns until under target, keeping the task and latest turns', () => {
  const turnsChars = [500, 1000, 1000, 1000, 1000, 500];
  // Total 5000; target 3000: removing turns 1 and 2 and adding a 400-char belief gives 3400,
  // turn 3 too gives 2400.
  assert.deepEqual(consolidationPlan({ turnsChars, keepLatest: 2, targetChars: 3000 }), {
    condense: [1, 2, 3],
    charsAfter: 2400,
    reachesTarget: true,
  });
  assert.deepEqual(consolidationPlan({ turnsChars, keepLatest: 2, targetChars: 3000, beliefChars: 0 }), {
    condense: [1, 2, 3],
    charsAfter: 2000,
    reachesTarget: true,
  });
  assert.deepEqual(consolidationPlan({ turnsChars, keepLatest: 2, targetChars: 3500, beliefChars: 0 }), {
    condense: [1, 2],
    charsAfter: 3000,
    reachesTarget: true,
  });
});

test('consolidationPlan: already under target, or not reachable', () => {
  const turnsChars = [500, 1000, 1000, 1000];
  assert.deepEqual(consolidationPlan({ turnsChars, keepLatest: 1, targetChars: 3501 }), {
    condense: [],
    charsAfter: 3500,
    reachesTarget: true,
  });
  const tight = consolidationPlan({ turnsChars, keepLatest: 1, targetChars: 1000, beliefChars: 100 });
  assert.deepEqual(tight, { condense: [1, 2], charsAfter: 1600, reachesTarget: false });
  const nothingEligible = consolidationPlan({ turnsChars, keepLatest: 3, targetChars: 1000 });
  assert.deepEqual(nothingEligible, { condense: [], charsAfter: 3500, reachesTarget: false });
});

test('temporalPriorityKey: five bands, 1 highest, default 128 → 3', () => {
  const cases: Array<[number, number]> = [
    [0, 5],
    [51, 5],
    [52, 4],
    [102, 4],
    [103, 3],
    [DEFAULT_PRIORITY, 3],
    [153, 3],
    [154, 2],
    [204, 2],
    [205, 1],
    [230, 1],
    [255, 1],
    [-10, 5],
    [999, 1],
  ];
  for (const [priority, key] of cases) assert.equal(temporalPriorityKey(priority), key, `${priority}`);
});

test('beliefPrompt asks for one belief in the agent.reflected format', () => {
  const prompt = beliefPrompt({ recentTurnsText: 'read_file a.ts → 20 lines', goal: 'Fix the parser' });
  assert.ok(prompt.includes('Fix the parser'));
  assert.ok(prompt.includes('read_file a.ts → 20 lines'));
  assert.match(prompt, /ONE high-level belief/);
  assert.ok(prompt.endsWith('OUTPUT FORMAT\n{"kind": "agent.reflected", "text": "<one sentence belief>"}'));
  assert.ok(BeliefSchema.safeParse({ kind: 'agent.reflected', text: 'The parser fails on tabs.' }).success);
  assert.ok(!BeliefSchema.safeParse({ kind: 'agent.thought', text: 'x' }).success);
});

test('the assessment note names the tools that keep failing, with their record, and a stall', () => {
  const toolStats = { read_file: { calls: 4, successes: 0 }, search: { calls: 3, successes: 3 } };
  const failing = assess({ ...calm, toolStats });
  assert.equal(
    assessmentNote(failing, toolStats),
    '[Self-assessment] These tools keep failing: read_file (0 of 4 calls succeeded). Read their errors and change the arguments rather than repeating them. A call a human denied is no failure to work around: what was refused stays refused, whatever tool would do it.',
  );
  const stalled = assess({ ...calm, cycle: 10, lastAssessmentCycle: 5, lastProgressCycle: 1 });
  assert.match(
    assessmentNote(stalled, {}) ?? '',
    /^\[Self-assessment\] No progress: no progress for 9 cycles\./,
  );
  assert.equal(assessmentNote(assess(calm), {}), undefined, 'nothing to say, no note');
});
