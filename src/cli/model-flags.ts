import { InvalidArgumentError } from 'commander';
import { CliError } from './cli-error';
import type { GoalInput } from '../workflows/goal/lifecycle/input';
import type { ToolChoiceSetting } from '../workflows/goal/model-turn/request-options';

/** The Messages API's least thinking budget (goal input checks it too, in its own words). */
export const MIN_THINKING_TOKENS = 1024;

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
  /** --context-window: the window the context budget counts tokens against. */
  contextWindow?: number;
  /** --fallback-model (repeatable): models a turn goes to while the model is overloaded. */
  fallbackModel?: string[];
  /** --tool-choice, parsed by toolChoiceFlag. */
  toolChoice?: ToolChoiceSetting;
  /** false with --no-parallel-tool-use; absent or true otherwise (the API's default). */
  parallelToolUse?: boolean;
}

/**
 * `--tool-choice auto|any|none|tool:NAME` as model.toolChoice. Whether NAME is one of the goal's
 * tools is checked when the goal starts, where its tools are known.
 */
export function toolChoiceFlag(value: string): ToolChoiceSetting {
  if (value === 'auto' || value === 'any' || value === 'none') return value;
  const name = value.startsWith('tool:') ? value.slice('tool:'.length) : '';
  if (name === '') throw new InvalidArgumentError('must be auto, any, none or tool:NAME');
  return { type: 'tool', name };
}

/**
 * `keel run`'s `--model`, `--answer-tokens`, `--thinking`, cache, `--model-patience`, `--context-window`,
 * `--tool-choice` and `--no-parallel-tool-use` flags as goal input `model`
 * (validated with the rest of the input, so a bad combination gets the schema's one line).
 */
export function modelInput(flags: ModelFlags): Pick<GoalInput, 'model'> {
  checkThinking(flags);
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
    ...(flags.contextWindow === undefined ? {} : { contextWindowTokens: flags.contextWindow }),
    ...(flags.fallbackModel?.length ? { fallbacks: flags.fallbackModel } : {}),
    ...(flags.toolChoice === undefined ? {} : { toolChoice: flags.toolChoice }),
    ...(flags.parallelToolUse === false ? { disableParallelToolUse: true } : {}),
  };
  return Object.keys(model).length > 0 ? { model } : {};
}

/**
 * The thinking rules in the flags' own names: the schema would name the input's path
 * (model.thinking.budgetTokens), which is not what the person typed.
 */
function checkThinking({ thinking, answerTokens }: ModelFlags): void {
  if (thinking === undefined) return;
  if (thinking < MIN_THINKING_TOKENS)
    throw new CliError(`--thinking must be at least ${MIN_THINKING_TOKENS} tokens, got ${thinking}`);
  if (answerTokens !== undefined && thinking >= answerTokens)
    throw new CliError(
      `--thinking (${thinking}) must be below --answer-tokens (${answerTokens}): answers hold the thinking`,
    );
}
