/**
 * Checkpoint escalation (issue 10): a scheduled checkpoint is a soft constraint, and seed 003
 * saw a model ignore 5 of 5. keel judges every reply to a checkpoint (the same generous judge as
 * response tracking); when the response rate is low it switches the goal to enforced checkpoints
 * (tool calls held back until the checkpoint is answered), and a model that still will not answer
 * after a few held turns is stopped.
 */

export interface CheckpointEscalationSettings {
  enabled: boolean;
  /** Escalate when the share of answered checkpoints falls below this … */
  minResponseRate: number;
  /** … once at least this many checkpoints were judged. */
  minCheckpoints: number;
  /** Under enforcement, replies in a row that still ignore the checkpoint before the goal stops. */
  stopAfterHeldTurns: number;
}

export const DEFAULT_CHECKPOINT_ESCALATION_SETTINGS: CheckpointEscalationSettings = {
  enabled: true,
  minResponseRate: 0.5,
  minCheckpoints: 2,
  stopAfterHeldTurns: 3,
};

export interface CheckpointRecord {
  judged: number;
  answered: number;
  /** Enforced checkpoints are on for the rest of the goal. */
  escalated: boolean;
  /** Replies in a row that ignored an enforced checkpoint. */
  heldTurns: number;
}

export function initialCheckpointRecord(): CheckpointRecord {
  return { judged: 0, answered: 0, escalated: false, heldTurns: 0 };
}

export type CheckpointVerdict =
  | { kind: 'none' }
  /** Ignored, but the rate is not low yet (or too few checkpoints): tell the model directly. */
  | { kind: 'warn'; judged: number; answered: number; rate: number }
  | { kind: 'escalate'; judged: number; answered: number; rate: number; minResponseRate: number }
  | { kind: 'stop'; heldTurns: number; judged: number; answered: number };

/**
 * The reply after a checkpoint was judged `addressed` or not; updates `record` and says what to do.
 * Under enforcement, an ignoring reply counts as a held turn rather than a new checkpoint: the same
 * checkpoint is still open.
 */
export function judgeCheckpointReply(
  record: CheckpointRecord,
  addressed: boolean,
  settings: CheckpointEscalationSettings,
): CheckpointVerdict {
  if (!settings.enabled) return { kind: 'none' };
  if (record.escalated && record.heldTurns > 0) {
    // The open checkpoint of an earlier reply: answered now, or held once more.
    if (addressed) {
      record.answered += 1;
      record.heldTurns = 0;
      return { kind: 'none' };
    }
    record.heldTurns += 1;
    if (record.heldTurns >= settings.stopAfterHeldTurns) {
      return { kind: 'stop', heldTurns: record.heldTurns, judged: record.judged, answered: record.answered };
    }
    return { kind: 'none' };
  }
  record.judged += 1;
  if (addressed) {
    record.answered += 1;
    return { kind: 'none' };
  }
  const rate = record.answered / record.judged;
  const numbers = { judged: record.judged, answered: record.answered, rate };
  if (record.escalated) {
    record.heldTurns = 1;
    return settings.stopAfterHeldTurns <= 1
      ? { kind: 'stop', heldTurns: 1, judged: record.judged, answered: record.answered }
      : { kind: 'none' };
  }
  if (record.judged >= settings.minCheckpoints && rate < settings.minResponseRate) {
    record.escalated = true;
    record.heldTurns = 1;
    return { kind: 'escalate', ...numbers, minResponseRate: settings.minResponseRate };
  }
  return { kind: 'warn', ...numbers };
}

export function checkpointIgnoredPrompt(options: {
  judged: number;
  answered: number;
  escalated: boolean;
  /** The answer only repeated an earlier reply. */
  repeated?: boolean;
}): string {
  const lines = [
    `[Checkpoint not answered] You have answered ${options.answered} of ${options.judged} checkpoints.`,
    ...(options.repeated
      ? ['Your reply repeated what you had already said; a checkpoint answer says what is new since then.']
      : []),
    'Answer the checkpoint above in plain text before your next tool call: does the plan still match the task, what did the recent steps prove or rule out, and what is the next concrete output?',
  ];
  lines.push(
    options.escalated
      ? 'Checkpoints are now enforced: your tool calls are held back until you answer, and a goal that keeps not answering is stopped.'
      : 'If checkpoints keep going unanswered, keel enforces them: tool calls are held back until you answer.',
  );
  return lines.join('\n');
}
