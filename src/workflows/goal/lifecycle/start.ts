import { ApplicationFailure } from '@temporalio/workflow';
import { DEFAULT_PRIORITY } from '../../planning/assessment';
import { FailureType } from '../../common/failure-types';
import { parseGoalInput, type GoalInput } from './input';
import {
  emptyCounters,
  emptyUsage,
  GOAL_STATE_SCHEMA_VERSION,
  GoalPhase,
  GoalStatus,
  loadGoalState,
  type GoalState,
} from './state';
import { emptyLedger } from '../../common/ledger';
import { initialGuardsState } from '../../principles/guards';
import { initialPrinciplesState } from '../../principles/principles';

/** A new goal's state from validated input; bad input fails the workflow, non-retryable. */
export function newGoalState(input: GoalInput): GoalState {
  const parsed = parseGoalInput(input);
  if (!parsed.ok) throw ApplicationFailure.nonRetryable(parsed.message, FailureType.InvalidGoalInput);
  const config = parsed.config;
  const now = Date.now(); // the workflow clock: deterministic on replay
  return {
    schemaVersion: GOAL_STATE_SCHEMA_VERSION,
    config,
    status: GoalStatus.Running,
    phase: GoalPhase.Thinking,
    transcript: [],
    tasks: [{ index: 0, text: config.goal, startedAt: new Date(now).toISOString(), startedAtTurn: 0 }],
    counters: emptyCounters(),
    usage: emptyUsage(),
    inbox: [],
    notes: [],
    startedAtMs: now,
    continuedAsNew: 0,
    callsNamed: 0,
    // Filled from the worker on the first run (see prepare); a placeholder until then.
    workerDefaults: { ledgerSinks: false },
    principles: initialPrinciplesState(0),
    guards: initialGuardsState({ toolCalls: 0, modelTurns: 0 }),
    ledger: emptyLedger(),
    ledgerPublishedThrough: 0,
    planning: {
      failedToolCalls: [],
      failures: [],
      step: { consecutiveFailedCalls: 0, hypothesisMismatches: 0, approvalDenied: false },
    },
    assessment: {
      priority: DEFAULT_PRIORITY,
      count: 0,
      lastAssessmentCycle: 0,
      toolStats: {},
      requested: false,
      consolidations: 0,
      subGoals: [],
    },
    reflection: { notesApplied: false },
    structured: { calls: 0, rawFallbacks: 0 },
  };
}

export function resumeGoalState(carried: unknown): GoalState {
  const loaded = loadGoalState(carried);
  if (!loaded.ok) throw ApplicationFailure.nonRetryable(loaded.message, FailureType.InvalidGoalState);
  return loaded.state;
}
