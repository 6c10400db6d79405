import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  AdjustmentKind,
  DEFAULT_PRIORITY,
  assess,
  assessmentDue,
  assessmentNote,
  beliefPrompt,
  consolidationPlan,
  ineffectiveTools,
  type AssessmentInput,
} from '../../src/workflows/planning/assessment';

/**
 * The self-assessment's rules to the word (issue 27: mutation testing): assessment.test.ts shows
 * each adjustment at work; these pin the reasons the ledger and the model read, the note's joins,
 * and consolidationPlan's strict "under the target" at its exact edge.
 */

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

test('the adjustment kinds the ledger records are fixed words', () => {
  assert.deepEqual(AdjustmentKind, {
    BoostPriority: 'boost-priority',
    DemotePriority: 'demote-priority',
    SuggestDecomposition: 'suggest-decomposition',
    Consolidate: 'consolidate',
    SuggestAbandon: 'suggest-abandon',
  });
});

test('a negative interval disables assessment as 0 does', () => {
  for (const cycle of [5, 10, 20]) assert.equal(assessmentDue({ cycle, interval: -5 }), false, `${cycle}`);
});

test('stalled 16 cycles without sub-goals: the whole assessment, every reason to the word, in order', () => {
  assert.deepEqual(assess({ ...calm, cycle: 16, transcriptChars: 9500 }), {
    findings: {
      progressed: false,
      stagnant: true,
      stagnantCycles: 16,
      ineffectiveTools: [],
      memoryPressure: 0.95,
    },
    adjustments: [
      { kind: 'demote-priority', from: 128, to: 98, reason: 'no progress for 16 cycles' },
      {
        kind: 'suggest-decomposition',
        reason: 'stalled for 16 cycles with no sub-goals: split the goal into smaller ones',
      },
      { kind: 'suggest-abandon', reason: 'no progress for 16 cycles (limit 16)' },
      { kind: 'consolidate', targetChars: 7000, reason: 'transcript fills 95% of the context budget' },
    ],
    priority: 98,
  });
});

test('progress in the period suggests neither decomposition nor abandonment, however long the old stall', () => {
  assert.deepEqual(
    assess({
      ...calm,
      cycle: 40,
      lastAssessmentCycle: 35,
      lastProgressCycle: 2,
      progressSinceLastAssessment: true,
    }),
    {
      findings: {
        progressed: true,
        stagnant: false,
        stagnantCycles: 38,
        ineffectiveTools: [],
        memoryPressure: 0.1,
      },
      adjustments: [
        { kind: 'boost-priority', from: 128, to: 148, reason: 'progress since the last assessment' },
      ],
      priority: 148,
    },
  );
});

test('ineffective tools are listed sorted by name, whatever order they were first called in', () => {
  const toolStats = {
    write_file: { calls: 3, successes: 0 },
    run_command: { calls: 5, successes: 1 },
    apply_patch: { calls: 2, successes: 0 },
  };
  assert.deepEqual(ineffectiveTools(toolStats), ['apply_patch', 'run_command', 'write_file']);
});

test('the note: every failing tool with its record, joined by ", ", then the stall, joined by a space', () => {
  const toolStats = {
    write_file: { calls: 3, successes: 0 },
    run_command: { calls: 5, successes: 1 },
  };
  const stalled = assess({ ...calm, cycle: 10, toolStats, hasSubGoals: true });
  assert.equal(
    assessmentNote(stalled, toolStats),
    '[Self-assessment] These tools keep failing: run_command (1 of 5 calls succeeded), write_file (0 of 3 calls succeeded). ' +
      'Read their errors and change the arguments rather than repeating them. A call a human denied is no failure to work around: what was refused stays refused, whatever tool would do it. ' +
      'No progress: no progress for 10 cycles. Step back and try a different approach.',
  );
  // Stats not handed to the note: the tool is named without a record.
  assert.equal(
    assessmentNote(stalled, {}),
    '[Self-assessment] These tools keep failing: run_command, write_file. ' +
      'Read their errors and change the arguments rather than repeating them. A call a human denied is no failure to work around: what was refused stays refused, whatever tool would do it. ' +
      'No progress: no progress for 10 cycles. Step back and try a different approach.',
  );
});

test('only a demotion is a stall for the note: a boost or a consolidation alone says nothing', () => {
  const boosted = assess({ ...calm, progressSinceLastAssessment: true });
  assert.equal(boosted.adjustments[0]?.kind, 'boost-priority');
  assert.equal(assessmentNote(boosted, {}), undefined);
  const crowded = assess({ ...calm, transcriptChars: 9500 });
  assert.deepEqual(
    crowded.adjustments.map((adjustment) => adjustment.kind),
    ['consolidate'],
  );
  assert.equal(assessmentNote(crowded, {}), undefined);
});

test('consolidationPlan: a transcript exactly at the target is condensed, since the target is a strict limit', () => {
  const turnsChars = [500, 1000, 1000, 1000];
  assert.deepEqual(consolidationPlan({ turnsChars, keepLatest: 1, targetChars: 3500, beliefChars: 0 }), {
    condense: [1],
    charsAfter: 2500,
    reachesTarget: true,
  });
});

test('consolidationPlan: landing exactly on the target is not under it, so condensing goes on', () => {
  const turnsChars = [500, 1000, 1000, 1000, 1000, 500];
  // Total 5000; condensing turn 1 leaves exactly 4000, turn 2 too leaves 3000.
  assert.deepEqual(consolidationPlan({ turnsChars, keepLatest: 2, targetChars: 4000, beliefChars: 0 }), {
    condense: [1, 2],
    charsAfter: 3000,
    reachesTarget: true,
  });
  // Every eligible turn condensed and the transcript exactly at the target: not reached.
  assert.deepEqual(consolidationPlan({ turnsChars: [500, 1000, 1000], keepLatest: 1, targetChars: 1900 }), {
    condense: [1],
    charsAfter: 1900,
    reachesTarget: false,
  });
});

test('the belief prompt, to the word', () => {
  assert.equal(
    beliefPrompt({ recentTurnsText: 'read_file a.ts → 20 lines', goal: 'Fix the parser' }),
    [
      'IDENTITY\nYou are an autonomous agent working towards this goal:\nFix the parser',
      'RECENT MEMORY (the turns being condensed)\nread_file a.ts → 20 lines',
      'TASK\nSynthesise the above into ONE high-level belief about the task, the workspace or your approach ' +
        'so far. This belief will replace the raw memories in your future context, so keep what you will ' +
        'still need: facts found, what worked, what failed and why.',
      'OUTPUT FORMAT\n{"kind": "agent.reflected", "text": "<one sentence belief>"}',
    ].join('\n\n'),
  );
});
