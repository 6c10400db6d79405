/**
 * `keel run`'s parsed options, and the goal input parts made from its principle, approval and
 * rule flags (validated with the rest of the input).
 */
import type { GoalInput } from '../workflows/goal/lifecycle/input';
import type { ToolChoiceSetting } from '../workflows/goal/model-turn/request-options';
import { budgetInput } from './budget-flags';
import { CliError } from './cli-error';
import type { NotifyFlags } from './notify-flags';
import { ruleFlag } from './rule-flag';

export interface RunOptions extends NotifyFlags {
  criteria: string[];
  workspace: string;
  approvalPolicy: 'auto' | 'ask';
  model?: string;
  answerTokens?: number;
  thinking?: number;
  /** false with --no-cache. */
  cache: boolean;
  cacheTtl?: '5m' | '1h';
  modelPatience?: number;
  toolChoice?: ToolChoiceSetting;
  /** false with --no-parallel-tool-use. */
  parallelToolUse: boolean;
  maxToolCalls?: number;
  maxTurns?: number;
  approvalTimeout?: number;
  reflectionCadence?: number;
  maxUsd?: number;
  maxTokens?: number;
  maxWallTime?: number;
  budget?: boolean;
  judge?: boolean;
  judgeModel?: string;
  network?: boolean;
  tools?: string[];
  approvers: string[];
  approvalKey: string[];
  allow: string[];
  allowIrreversible: string[];
  requireEncryptedDecisions?: boolean;
  forbid: string[];
  plan?: boolean;
  delegate?: boolean;
  delegateDepth?: number;
  maxChildren?: number;
  reflect?: boolean;
  id?: string;
  host?: string;
  git?: string;
  gitRef?: string;
  hostTimeout?: number;
  wait?: boolean;
}

/** `--reflection-cadence` and the budget flags as goal input `principles` (validated with the rest). */
export function principlesInput(options: RunOptions): Pick<GoalInput, 'principles'> {
  const budget = budgetInput(options);
  const principles = {
    ...(options.reflectionCadence !== undefined ? { cadence: { every: options.reflectionCadence } } : {}),
    ...(budget ? { budget } : {}),
  };
  return Object.keys(principles).length > 0 ? { principles } : {};
}

/** `--allow`, `--allow-irreversible` and `--forbid` as goal input approvalRules. */
export function rulesInput(options: RunOptions): Pick<GoalInput, 'approvalRules'> {
  const rules = [
    ...options.allow.map((text) => ({ ...ruleFlag(text, '--allow'), effect: 'allow' as const })),
    ...options.allowIrreversible.map((text) => ({
      ...ruleFlag(text, '--allow-irreversible'),
      irreversible: true,
      effect: 'allow' as const,
    })),
    ...options.forbid.map((text) => ({ ...ruleFlag(text, '--forbid'), effect: 'forbid' as const })),
  ];
  return rules.length === 0 ? {} : { approvalRules: rules };
}

/** `--approvers tier=a,b` and `--approval-key name=key` as goal input (validated with the rest). */
export function approvalInput(options: RunOptions): Pick<GoalInput, 'approvers' | 'approvalSignatures'> {
  const pairs = (values: string[], flag: string) =>
    values.map((value) => {
      const at = value.indexOf('=');
      if (at <= 0) throw new CliError(`${flag} wants name=value, got ${value}`);
      return [value.slice(0, at).trim(), value.slice(at + 1).trim()] as const;
    });
  const approvers: Record<string, string[]> = {};
  for (const [tier, names] of pairs(options.approvers, '--approvers')) {
    approvers[tier] = names.split(',').map((name) => name.trim());
  }
  const keys = Object.fromEntries(pairs(options.approvalKey, '--approval-key'));
  return {
    ...(options.approvers.length > 0 ? { approvers } : {}),
    ...(options.approvalKey.length > 0 ? { approvalSignatures: { scheme: 'ed25519' as const, keys } } : {}),
  };
}

/** `--delegate` and its limits as goal input `delegation` (delegation/delegation.ts). */
export function delegationInput(options: RunOptions): Pick<GoalInput, 'delegation'> {
  if (options.delegate !== true) return {};
  return {
    delegation: {
      enabled: true,
      ...(options.delegateDepth === undefined ? {} : { maxDepth: options.delegateDepth }),
      ...(options.maxChildren === undefined ? {} : { maxConcurrent: options.maxChildren }),
    },
  };
}
