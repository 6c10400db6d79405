import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import {
  DEFAULT_GUARD_SETTINGS,
  GuardAction,
  guardTurn,
  initialGuardsState,
  type GuardedCall,
  type GuardSettings,
} from '../../src/workflows/principles/guards';
import { CallEffect } from '../../src/workflows/principles/progress';
import { classifyShellCommand } from '../../src/workflows/tools/shell-command-classifier';

/**
 * Replays recorded runs of real coding agents (../shared/trajectories, converted to keel's tool
 * vocabulary) through keel's pure guards, one recorded step per model turn, with the recorded
 * observations as results. Successful runs are good behaviour: a stop there is a false stop.
 *
 * What the replay can and cannot show:
 * - the recorded agent never read keel's prompts, so every warning is followed by what the agent
 *   did anyway: a stop here is what keel would do to an agent that ignores the warning (a real
 *   one might have changed course);
 * - observations are the first 300 characters of each result, so two results that differ only
 *   further on look alike (the replay errs towards "nothing new");
 * - no checkpoints (the agents never saw one, so their next thought cannot answer it), no
 *   hypotheses and no approvals: the checkpoint, hypothesis and denial guards are not replayed.
 */

const stepSchema = z.object({
  thought: z.string().nullish(),
  tool: z.string(),
  input: z.record(z.string(), z.unknown()).default({}),
  observation_excerpt: z
    .string()
    .nullish()
    .transform((text) => text ?? ''),
  observation_ok: z
    .boolean()
    .nullish()
    .transform((ok) => ok ?? true),
});

export const trajectorySchema = z.object({
  source: z.string().nullish(),
  model: z.string().nullish(),
  outcome: z.enum(['resolved', 'failed', 'stuck', 'cost_limit', 'unknown']),
  agent: z.string().nullish(),
  run: z.string().nullish(),
  steps: z.array(stepSchema),
});
export type Trajectory = z.infer<typeof trajectorySchema> & { file: string; group: string };

export interface TrajectoryDecision {
  guard: string;
  /** prompt (a warning) or stop, as the ledger calls them. */
  action: 'prompt' | 'stop';
  /** The 1-based step (tool call) of the trajectory. */
  step: number;
  summary: string;
}

export interface TrajectoryReplay {
  file: string;
  group: string;
  outcome: Trajectory['outcome'];
  steps: number;
  decisions: TrajectoryDecision[];
}

/**
 * The groups INDEX.md names, by file name: reruns of the same tasks belong to one group, so rates
 * can be weighted per group.
 */
export function groupOf(file: string, index: ReadonlyMap<string, string>): string {
  return index.get(file) ?? 'ungrouped';
}

/** file → group, from the table in INDEX.md (`| file | group | …`), when the folder has one. */
export function readIndex(directory: string): Map<string, string> {
  const groups = new Map<string, string>();
  let text: string;
  try {
    text = readFileSync(path.join(directory, 'INDEX.md'), 'utf8');
  } catch {
    return groups;
  }
  for (const line of text.split('\n')) {
    const cells = line.split('|').map((cell) => cell.trim());
    const file = cells[1];
    const group = cells[2];
    if (file?.endsWith('.json') && group) groups.set(file, group);
  }
  return groups;
}

/** Every trajectory file in `directory` (sorted by name); a file that does not parse is an error. */
export function loadTrajectories(directory: string): Trajectory[] {
  const index = readIndex(directory);
  return readdirSync(directory)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((file) => {
      const parsed = trajectorySchema.safeParse(JSON.parse(readFileSync(path.join(directory, file), 'utf8')));
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        throw new Error(
          `${file}: not a trajectory (${issue?.path.join('.') ?? ''}: ${issue?.message ?? ''})`,
        );
      }
      return { ...parsed.data, file, group: groupOf(file, index) };
    });
}

/** The guards a replay runs: checkpoints, hypotheses and denials have nothing to judge here. */
export function replaySettings(settings: GuardSettings = DEFAULT_GUARD_SETTINGS): GuardSettings {
  return {
    ...settings,
    checkpoints: { ...settings.checkpoints, enabled: false },
    hypotheses: { ...settings.hypotheses, enabled: false },
    denials: { ...settings.denials, enabled: false },
  };
}

const READ_TOOLS: ReadonlySet<string> = new Set(['read_file', 'list_dir', 'search', 'other']);

/** How a recorded step touched the world, as keel would have seen it. */
export function effectOf(step: z.infer<typeof stepSchema>): CallEffect {
  if (!step.observation_ok || READ_TOOLS.has(step.tool)) return CallEffect.Read;
  if (step.tool === 'run_command') {
    const raw = typeof step.input.raw === 'string' ? step.input.raw : '';
    return classifyShellCommand(raw).readOnly ? CallEffect.Read : CallEffect.Change;
  }
  return CallEffect.Change;
}

/**
 * The step's input as keel's tool would have received it: a shell command as `command`; any other
 * call with the recorded action kept whole (`raw`), since the mapping's fields alone (a path) would
 * make two different edits of one file look like the same call.
 */
function inputOf(step: z.infer<typeof stepSchema>): Record<string, unknown> {
  const { raw, ...mapped } = step.input;
  return step.tool === 'run_command' && typeof raw === 'string' ? { command: raw } : { ...mapped, raw };
}

export function replayTrajectory(
  trajectory: Trajectory,
  settings: GuardSettings = DEFAULT_GUARD_SETTINGS,
): TrajectoryReplay {
  const guards = replaySettings(settings);
  const state = initialGuardsState({ toolCalls: 0, modelTurns: 0 });
  const decisions: TrajectoryDecision[] = [];
  let step = 0;
  for (const recorded of trajectory.steps) {
    if (recorded.tool === 'submit') break; // the final answer: the run ends here
    step += 1;
    const call: GuardedCall = {
      toolName: recorded.tool,
      input: inputOf(recorded),
      summary: `${recorded.tool}: ${typeof recorded.input.raw === 'string' ? recorded.input.raw.slice(0, 80) : ''}`,
      resultText: recorded.observation_excerpt,
      failed: !recorded.observation_ok,
      candidates: [],
      atToolCall: step,
      effect: effectOf(recorded),
      hypothesisMismatch: undefined,
    };
    const made = guardTurn(state, guards, {
      calls: [call],
      toolCalls: step,
      modelTurns: step,
      progressCycle: undefined,
      consequence: 'stops the goal as stuck',
    });
    const stop = made.find((decision) => decision.action === GuardAction.Stop);
    for (const decision of stop ? [stop] : made) {
      decisions.push({
        guard: decision.guard,
        action: decision.action === GuardAction.Stop ? 'stop' : 'prompt',
        step,
        summary: decision.summary,
      });
    }
    if (stop) break; // keel would have ended the goal here
  }
  return {
    file: trajectory.file,
    group: trajectory.group,
    outcome: trajectory.outcome,
    steps: step,
    decisions,
  };
}
