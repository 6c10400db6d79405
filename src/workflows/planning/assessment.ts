import { z } from 'zod';

/**
 * Periodic self-assessment (seed 001's reflection; consolidation per seed 004). Every N cycles
 * (one cycle = one model turn) the goal examines its progress, stagnation, tool effectiveness and
 * memory pressure, and derives adjustments. All pure: the workflow applies the adjustments and
 * records findings and adjustments, each with its reason, in the ledger.
 */

/** Assess every 5 cycles by default (001's ReflectionConfig default). */
export const DEFAULT_ASSESSMENT_INTERVAL = 5;

/** True on cycles 5, 10, 15, … for interval 5; never at cycle 0 (no work yet); 0 disables. */
export function assessmentDue(options: { cycle: number; interval?: number }): boolean {
  const interval = options.interval ?? DEFAULT_ASSESSMENT_INTERVAL;
  if (interval <= 0) return false;
  return options.cycle > 0 && options.cycle % interval === 0;
}

/**
 * keel priority is 0..255, higher runs sooner. The default sits mid-range (128) so a goal nobody
 * prioritized maps to Temporal's default priority key 3 (see `temporalPriorityKey`).
 */
export const DEFAULT_PRIORITY = 128;
export const MAX_PRIORITY = 255;
export const PRIORITY_BOOST = 20;
/**
 * Boosts never lift a goal above this: 231..255 is left to people (a goal started at 250 keeps
 * 250, and progress alone never outranks it).
 */
export const PRIORITY_BOOST_CEILING = 230;
export const PRIORITY_DEMOTION = 30;

/** Stagnant: at least this many cycles worked and this many since the last progress. */
export const STAGNATION_CYCLES = 8;
/** Stagnant this long and the assessment suggests abandoning the goal. */
export const ABANDON_STAGNANT_CYCLES = 16;
/** A tool is judged only after this many calls. */
export const INEFFECTIVE_TOOL_MIN_CALLS = 2;
/** Below this success rate a judged tool is ineffective. */
export const INEFFECTIVE_TOOL_SUCCESS_RATE = 0.3;
/** Consolidate when the transcript fills more than this share of the context budget … */
export const CONSOLIDATION_PRESSURE = 0.9;
/** … bringing it below this share. */
export const CONSOLIDATION_TARGET = 0.7;

/**
 * The last cycle that made progress, by the one notion keel uses everywhere (issue 44,
 * principles/progress.ts): new information or a new lasting state, as the guards judged it — and a
 * successful change or completed step the goal recorded itself. A careful task that reads 40 files
 * before it edits makes progress on every read, and is not told to give up.
 */
export function lastProgressCycleOf(marks: {
  /** The goal's own record: a successful change, a completed step. */
  recorded: number | undefined;
  /** The last model turn whose calls brought something new (the guards' progress stretch). */
  broughtNew: number | undefined;
}): number | undefined {
  if (marks.recorded === undefined) return marks.broughtNew;
  if (marks.broughtNew === undefined) return marks.recorded;
  return Math.max(marks.recorded, marks.broughtNew);
}

export interface ToolStats {
  calls: number;
  successes: number;
}

export interface AssessmentInput {
  /** Cycles worked so far (model turns). */
  cycle: number;
  /** The cycle of the previous assessment, 0 when none. */
  lastAssessmentCycle: number;
  /** The last cycle that made progress; undefined when the goal never has. */
  lastProgressCycle: number | undefined;
  /** The workflow's own progress flag for the period (a step completed, criteria met, …). */
  progressSinceLastAssessment: boolean;
  toolStats: Readonly<Record<string, ToolStats>>;
  transcriptChars: number;
  contextBudgetChars: number;
  priority: number;
  hasSubGoals: boolean;
}

export interface AssessmentFindings {
  progressed: boolean;
  stagnant: boolean;
  /** Cycles since the last progress (since the start when there was none). */
  stagnantCycles: number;
  /** Sorted by name. */
  ineffectiveTools: string[];
  /** transcriptChars / contextBudgetChars; 0 when there is no budget. */
  memoryPressure: number;
}

export const AdjustmentKind = {
  BoostPriority: 'boost-priority',
  DemotePriority: 'demote-priority',
  SuggestDecomposition: 'suggest-decomposition',
  Consolidate: 'consolidate',
  SuggestAbandon: 'suggest-abandon',
} as const;
export type AdjustmentKind = (typeof AdjustmentKind)[keyof typeof AdjustmentKind];

export type Adjustment =
  | { kind: 'boost-priority'; from: number; to: number; reason: string }
  | { kind: 'demote-priority'; from: number; to: number; reason: string }
  | { kind: 'suggest-decomposition'; reason: string }
  | { kind: 'consolidate'; targetChars: number; reason: string }
  | { kind: 'suggest-abandon'; reason: string };

export interface Assessment {
  findings: AssessmentFindings;
  /** In a fixed order: priority change, decomposition, abandonment, consolidation. */
  adjustments: Adjustment[];
  /** The priority after the adjustments. */
  priority: number;
}

export function assess(input: AssessmentInput): Assessment {
  const progressed =
    input.progressSinceLastAssessment ||
    (input.lastProgressCycle !== undefined && input.lastProgressCycle > input.lastAssessmentCycle);
  const stagnantCycles = Math.max(0, input.cycle - (input.lastProgressCycle ?? 0));
  // Progress in this period overrides an old lastProgressCycle: the goal is moving again.
  const stagnant = !progressed && input.cycle >= STAGNATION_CYCLES && stagnantCycles >= STAGNATION_CYCLES;
  const memoryPressure = input.contextBudgetChars > 0 ? input.transcriptChars / input.contextBudgetChars : 0;
  const findings: AssessmentFindings = {
    progressed,
    stagnant,
    stagnantCycles,
    ineffectiveTools: ineffectiveTools(input.toolStats),
    memoryPressure,
  };

  const adjustments: Adjustment[] = [];
  const from = clampPriority(input.priority);
  let priority = from;
  if (progressed) {
    priority = boostedPriority(from);
    if (priority !== from) {
      adjustments.push({
        kind: 'boost-priority',
        from,
        to: priority,
        reason: 'progress since the last assessment',
      });
    }
  } else if (stagnant) {
    priority = demotedPriority(from);
    if (priority !== from) {
      adjustments.push({
        kind: 'demote-priority',
        from,
        to: priority,
        reason: `no progress for ${stagnantCycles} cycles`,
      });
    }
  }
  if (stagnant && !input.hasSubGoals) {
    adjustments.push({
      kind: 'suggest-decomposition',
      reason: `stalled for ${stagnantCycles} cycles with no sub-goals: split the goal into smaller ones`,
    });
  }
  if (stagnant && stagnantCycles >= ABANDON_STAGNANT_CYCLES) {
    adjustments.push({
      kind: 'suggest-abandon',
      reason: `no progress for ${stagnantCycles} cycles (limit ${ABANDON_STAGNANT_CYCLES})`,
    });
  }
  if (memoryPressure > CONSOLIDATION_PRESSURE) {
    adjustments.push({
      kind: 'consolidate',
      targetChars: consolidationTargetChars(input.contextBudgetChars),
      reason: `transcript fills ${Math.round(memoryPressure * 100)}% of the context budget`,
    });
  }
  return { findings, adjustments, priority };
}

/** The text every self-assessment note to the model starts with. */
export const ASSESSMENT_NOTE_MARKER = '[Self-assessment]';

/**
 * What the model should hear from an assessment: the tools that keep failing (with their record)
 * and a stall. Splitting and abandoning have notes of their own where the workflow acts on them;
 * priority changes and consolidation are the harness's business. Undefined when nothing applies.
 */
export function assessmentNote(
  assessment: Pick<Assessment, 'findings' | 'adjustments'>,
  toolStats: Readonly<Record<string, ToolStats>>,
): string | undefined {
  const lines: string[] = [];
  const ineffective = assessment.findings.ineffectiveTools;
  if (ineffective.length > 0) {
    const records = ineffective.map((name) => {
      const stats = toolStats[name];
      return stats ? `${name} (${stats.successes} of ${stats.calls} calls succeeded)` : name;
    });
    lines.push(
      `These tools keep failing: ${records.join(', ')}. Read their errors and change the arguments rather than repeating them. A call a human denied is no failure to work around: what was refused stays refused, whatever tool would do it.`,
    );
  }
  const demotion = assessment.adjustments.find((adjustment) => adjustment.kind === 'demote-priority');
  if (demotion) {
    lines.push(`No progress: ${demotion.reason}. Step back and try a different approach.`);
  }
  return lines.length === 0 ? undefined : `${ASSESSMENT_NOTE_MARKER} ${lines.join(' ')}`;
}

/**
 * +20 only while below the ceiling, and the result is capped at it: 200 → 220, 210 → 230,
 * 215 → 230 (not 235), 230 → 230, and 250 → 250 (a boost never lowers a priority).
 */
export function boostedPriority(priority: number): number {
  if (priority >= PRIORITY_BOOST_CEILING) return priority;
  return Math.min(priority + PRIORITY_BOOST, PRIORITY_BOOST_CEILING);
}

/** −30, saturating at 0. */
export function demotedPriority(priority: number): number {
  return Math.max(0, priority - PRIORITY_DEMOTION);
}

/** Tools with at least 2 calls and a success rate below 0.3, sorted by name. */
export function ineffectiveTools(toolStats: Readonly<Record<string, ToolStats>>): string[] {
  return Object.entries(toolStats)
    .filter(
      ([, stats]) =>
        stats.calls >= INEFFECTIVE_TOOL_MIN_CALLS &&
        stats.successes / stats.calls < INEFFECTIVE_TOOL_SUCCESS_RATE,
    )
    .map(([name]) => name)
    .sort();
}

/** The transcript size consolidation must get under: 70% of the budget, in whole characters. */
export function consolidationTargetChars(contextBudgetChars: number): number {
  return Math.floor((contextBudgetChars * 7) / 10); // integer arithmetic: 0.7 * 1000 is not exact
}

/**
 * Maps keel priority (0..255, higher first) to a Temporal priority key (1..5, 1 first; Temporal
 * uses 3 when unset). Five equal bands of 256/5: 0–51 → 5, 52–102 → 4, 103–153 → 3,
 * 154–204 → 2, 205–255 → 1. The default 128 lands on 3, like an unprioritized workflow.
 */
export function temporalPriorityKey(priority: number): number {
  return 5 - Math.floor((clampPriority(priority) * 5) / 256);
}

function clampPriority(priority: number): number {
  return Math.min(MAX_PRIORITY, Math.max(0, Math.round(priority)));
}

/** A guess at the belief's size when the caller has none, so a plan does not overshoot. */
export const BELIEF_CHARS_ESTIMATE = 400;

export interface ConsolidationPlan {
  /** Turn indices to condense into one belief, oldest first. */
  condense: number[];
  /** The transcript size afterwards, counting the belief that replaces the condensed turns. */
  charsAfter: number;
  /** False when even condensing every eligible turn cannot get under the target. */
  reachesTarget: boolean;
}

/**
 * Which turns to condense so the transcript drops under `targetChars`: the oldest first, never
 * turn 0 (the task message) nor the latest `keepLatest` turns (the model's working context).
 * Nothing is condensed when the transcript is already under target.
 */
export function consolidationPlan(options: {
  turnsChars: readonly number[];
  keepLatest: number;
  targetChars: number;
  beliefChars?: number;
}): ConsolidationPlan {
  const total = options.turnsChars.reduce((sum, chars) => sum + chars, 0);
  if (total < options.targetChars) return { condense: [], charsAfter: total, reachesTarget: true };
  const beliefChars = options.beliefChars ?? BELIEF_CHARS_ESTIMATE;
  const lastEligible = options.turnsChars.length - 1 - Math.max(0, options.keepLatest);
  const condense: number[] = [];
  let removed = 0;
  for (let index = 1; index <= lastEligible; index++) {
    condense.push(index);
    removed += options.turnsChars[index] ?? 0;
    if (total - removed + beliefChars < options.targetChars) break;
  }
  if (condense.length === 0) return { condense, charsAfter: total, reachesTarget: false };
  const charsAfter = total - removed + beliefChars;
  return { condense, charsAfter, reachesTarget: charsAfter < options.targetChars };
}

/** What the belief activity's model returns (seed 004's agent.reflected event). */
export const BeliefSchema = z.lazy(() =>
  z.object({
    kind: z.literal('agent.reflected'),
    text: z.string().min(1),
  }),
);
export type Belief = z.infer<typeof BeliefSchema>;

/**
 * Seed 004's reflection prompt, adapted: the agent's identity is its goal, and the one belief
 * replaces the condensed turns in its future context, so it should keep what later turns need.
 */
export function beliefPrompt(options: { recentTurnsText: string; goal: string }): string {
  return [
    `IDENTITY\nYou are an autonomous agent working towards this goal:\n${options.goal}`,
    `RECENT MEMORY (the turns being condensed)\n${options.recentTurnsText}`,
    'TASK\nSynthesise the above into ONE high-level belief about the task, the workspace or your ' +
      'approach so far. This belief will replace the raw memories in your future context, so keep ' +
      'what you will still need: facts found, what worked, what failed and why.',
    'OUTPUT FORMAT\n{"kind": "agent.reflected", "text": "<one sentence belief>"}',
  ].join('\n\n');
}
