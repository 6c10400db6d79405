import type { GoalInput } from '../workflows/goal/goal-input';

/** Room a thinking goal's answers get beyond the thinking budget, unless --answer-tokens says. */
export const ANSWER_ROOM_AFTER_THINKING = 4096;

export interface ModelFlags {
  model?: string;
  answerTokens?: number;
  thinking?: number;
  /** false with --no-cache. */
  cache: boolean;
  cacheTtl?: '5m' | '1h';
  /** --model-patience, in milliseconds: how long transient API trouble is waited out. */
  modelPatience?: number;
}

/**
 * `keel run`'s `--model`, `--answer-tokens`, `--thinking`, cache and `--model-patience` flags as
 * goal input `model`
 * (validated with the rest of the input, so a bad combination gets the schema's one line).
 */
export function modelInput(flags: ModelFlags): Pick<GoalInput, 'model'> {
  const maxTokens =
    flags.answerTokens ??
    (flags.thinking === undefined ? undefined : flags.thinking + ANSWER_ROOM_AFTER_THINKING);
  const model = {
    ...(flags.model ? { name: flags.model } : {}),
    ...(maxTokens === undefined ? {} : { maxTokens }),
    ...(flags.thinking === undefined ? {} : { thinking: { budgetTokens: flags.thinking } }),
    ...(!flags.cache || flags.cacheTtl !== undefined
      ? { cache: { enabled: flags.cache, ...(flags.cacheTtl ? { ttl: flags.cacheTtl } : {}) } }
      : {}),
    ...(flags.modelPatience === undefined ? {} : { patienceMs: flags.modelPatience }),
  };
  return Object.keys(model).length > 0 ? { model } : {};
}
