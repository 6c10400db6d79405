import { ofText } from './discipline-report';

/**
 * Rates over recorded real agent runs replayed through the guards (trajectory-replay.ts). A
 * resolved run is good behaviour: a stop there is a false stop, a warning a false warning. A run
 * that got stuck or hit its cost limit is real misbehaviour: any decision there is a detection.
 * Failed and unknown runs are shown for completeness; they carry no verdict either way.
 *
 * Group A holds three reruns of the same tasks, so a pooled rate would count its tasks thrice:
 * every rate is printed per group, and the overall rate is also given weighted per group (the
 * mean of the groups' rates), which is the one the targets use.
 */

/** One replayed trajectory, as trajectory-replay.ts's TrajectoryReplay gives it. */
export interface ReplayedTrajectory {
  file: string;
  group: string;
  outcome: 'resolved' | 'failed' | 'stuck' | 'cost_limit' | 'unknown';
  steps: number;
  decisions: ReadonlyArray<{ guard: string; action: string; step: number; summary: string }>;
}
type Outcome = ReplayedTrajectory['outcome'];

/** Issue 22: no stop on a successful real run; warnings on at most 1 in 10. */
export const RESOLVED_MAX_FALSE_STOPS = 0;
export const RESOLVED_MAX_FALSE_WARNING_RATE = 0.1;
/** Issue 44: and warnings on at most 1 in 20 in every agent family, not only on the mean. */
export const RESOLVED_MAX_FALSE_WARNING_RATE_PER_FAMILY = 0.05;

/**
 * The agent family of a recorded run: its file name's prefix, the agent's owner+repository
 * ("SWE-agent+mini-swe-agent__pr816__…" → "SWE-agent+mini-swe-agent"); "other" without one.
 */
export function familyOf(file: string): string {
  const prefix = file.split('__')[0];
  return prefix !== undefined && prefix !== '' && prefix !== file ? prefix : 'other';
}

/** A family's resolved runs and the false stops and false warnings on them. */
export interface FamilyRates {
  family: string;
  resolved: number;
  falseStops: number;
  falseWarnings: number;
}

const OUTCOMES: readonly Outcome[] = ['resolved', 'stuck', 'cost_limit', 'failed', 'unknown'];
const ROLE: Record<Outcome, string> = {
  resolved: 'good behaviour: a stop is a false stop, a warning a false warning',
  stuck: 'misbehaviour: a stop or a warning is a detection',
  cost_limit: 'misbehaviour: a stop or a warning is a detection',
  failed: 'no verdict',
  unknown: 'no verdict',
};

const isStopAction = (action: string) => action === 'stop' || action === 'fail-step';

export interface TrajectoryCounts {
  runs: number;
  /** Runs with at least one stop (or failed plan step). */
  stopped: number;
  /** Runs with at least one warning (a prompt or enforced checkpoints). */
  warned: number;
  /** Runs with any decision. */
  decided: number;
}

export interface OutcomeRates extends TrajectoryCounts {
  outcome: Outcome;
  /** The mean of the per-group rates, over the groups with runs of this outcome. */
  weighted: { stopped: number; warned: number; decided: number };
  byGroup: Array<TrajectoryCounts & { group: string }>;
  /** Median step of the first stop, over the runs stopped. */
  medianFirstStop: number | undefined;
}

export interface TrajectorySummary {
  trajectories: number;
  groups: string[];
  outcomes: OutcomeRates[];
  /** Per agent family, over its resolved runs, sorted by family (families without one left out). */
  families: FamilyRates[];
  missed: string[];
}

function familyRates(replays: readonly ReplayedTrajectory[]): FamilyRates[] {
  const resolved = replays.filter((run) => run.outcome === 'resolved');
  return [...new Set(resolved.map((run) => familyOf(run.file)))].sort().map((family) => {
    const row = counts(resolved.filter((run) => familyOf(run.file) === family));
    return { family, resolved: row.runs, falseStops: row.stopped, falseWarnings: row.warned };
  });
}

function counts(replays: readonly ReplayedTrajectory[]): TrajectoryCounts {
  return {
    runs: replays.length,
    stopped: replays.filter((run) => run.decisions.some((decision) => isStopAction(decision.action))).length,
    warned: replays.filter((run) => run.decisions.some((decision) => !isStopAction(decision.action))).length,
    decided: replays.filter((run) => run.decisions.length > 0).length,
  };
}

function median(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle] : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

export function summarizeTrajectories(replays: readonly ReplayedTrajectory[]): TrajectorySummary {
  const groups = [...new Set(replays.map((run) => run.group))].sort();
  const outcomes = OUTCOMES.flatMap((outcome): OutcomeRates[] => {
    const runs = replays.filter((run) => run.outcome === outcome);
    if (runs.length === 0) return [];
    const byGroup = groups
      .map((group) => ({ group, ...counts(runs.filter((run) => run.group === group)) }))
      .filter((row) => row.runs > 0);
    const mean = (field: 'stopped' | 'warned' | 'decided') =>
      byGroup.reduce((sum, row) => sum + row[field] / row.runs, 0) / byGroup.length;
    const firstStops = runs.flatMap((run) => {
      const stop = run.decisions.find((decision) => isStopAction(decision.action));
      return stop ? [stop.step] : [];
    });
    return [
      {
        outcome,
        ...counts(runs),
        weighted: { stopped: mean('stopped'), warned: mean('warned'), decided: mean('decided') },
        byGroup,
        medianFirstStop: median(firstStops),
      },
    ];
  });
  const resolved = outcomes.find((rates) => rates.outcome === 'resolved');
  const missed: string[] = [];
  if (resolved && resolved.stopped > RESOLVED_MAX_FALSE_STOPS)
    missed.push(
      `${resolved.stopped} of ${resolved.runs} resolved real runs stopped (target ${RESOLVED_MAX_FALSE_STOPS})`,
    );
  if (resolved && resolved.weighted.warned > RESOLVED_MAX_FALSE_WARNING_RATE)
    missed.push(
      `false warnings on ${percent(resolved.weighted.warned)} of resolved real runs, weighted per group (target ≤ ${percent(RESOLVED_MAX_FALSE_WARNING_RATE)})`,
    );
  const families = familyRates(replays);
  for (const row of families)
    if (row.falseWarnings / row.resolved > RESOLVED_MAX_FALSE_WARNING_RATE_PER_FAMILY)
      missed.push(
        `${row.family}: false warnings on ${percent(row.falseWarnings / row.resolved)} of its resolved real runs (${row.falseWarnings} of ${row.resolved}; target ≤ ${percent(RESOLVED_MAX_FALSE_WARNING_RATE_PER_FAMILY)} in every family)`,
      );
  return { trajectories: replays.length, groups, outcomes, families, missed };
}

const percent = (rate: number) => `${Math.round(rate * 100)}%`;

/** "A. SWE-agent (GPT-4-0125) on SWE-bench Lite, …" → "A. SWE-agent". */
export const shortGroup = (group: string) => group.split(/[,(]/)[0]?.trim() || group;

export function trajectoryLines(
  summary: TrajectorySummary,
  replays: readonly ReplayedTrajectory[],
): string[] {
  const lines = [
    `real behaviour (${summary.trajectories} recorded trajectories replayed through the guards):`,
  ];
  for (const rates of summary.outcomes) {
    const stop =
      rates.medianFirstStop === undefined ? '' : `, median first stop at step ${rates.medianFirstStop}`;
    lines.push(
      `  ${rates.outcome} (${ROLE[rates.outcome]}): ${rates.runs} runs`,
      `    stopped ${ofText(rates.stopped, rates.runs)}, weighted per group ${percent(rates.weighted.stopped)}${stop}`,
      `    warned ${ofText(rates.warned, rates.runs)}, weighted per group ${percent(rates.weighted.warned)}`,
      `    any decision ${ofText(rates.decided, rates.runs)}, weighted per group ${percent(rates.weighted.decided)}`,
    );
  }
  lines.push('  per group (runs: stopped / warned / any decision):');
  for (const group of summary.groups) {
    const cells = summary.outcomes.flatMap((rates) => {
      const row = rates.byGroup.find((candidate) => candidate.group === group);
      return row ? [`${rates.outcome} ${row.runs}: ${row.stopped} / ${row.warned} / ${row.decided}`] : [];
    });
    lines.push(`    ${shortGroup(group)}: ${cells.join('; ')}`);
  }
  lines.push('  per agent family (resolved runs: false stops / false warnings):');
  for (const row of summary.families)
    lines.push(
      `    ${row.family}: ${row.resolved} resolved: ${ofText(row.falseStops, row.resolved)} / ${ofText(row.falseWarnings, row.resolved)}`,
    );
  const falseStops = replays.filter(
    (run) => run.outcome === 'resolved' && run.decisions.some((decision) => isStopAction(decision.action)),
  );
  for (const run of falseStops.slice(0, 10)) {
    const stop = run.decisions.find((decision) => isStopAction(decision.action));
    lines.push(`  false stop: ${run.file} at step ${stop?.step} of ${run.steps}: ${stop?.summary}`);
  }
  if (falseStops.length > 10) lines.push(`  … and ${falseStops.length - 10} more false stops (see the JSON)`);
  lines.push(
    `  real targets: ${summary.missed.length === 0 ? 'all met' : `missed: ${summary.missed.join('; ')}`}`,
  );
  return lines;
}
