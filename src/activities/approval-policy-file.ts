import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { ruleSpecSchema, type RuleSpec } from '../workflows/approvals/approval-rule';
import { MAX_INPUT_RULES } from '../workflows/goal/lifecycle/input';

/**
 * A team's approval rules for every goal a worker starts (KEEL_APPROVAL_RULES, `keel worker
 * --approval-rules`): a JSON file reviewed like code, read once when the worker starts. Each goal
 * records the rules it got at its start (worker defaults), so editing the file later changes only
 * goals started after the worker restarts. A bad file stops the worker with one line naming it.
 *
 *   { "rules": [ { "effect": "allow", "tool": "run_command", "pattern": "npm test*" },
 *                { "effect": "forbid", "tool": "run_command", "pattern": "git push*" } ] }
 */
export const approvalPolicyFileSchema = z
  .object({ rules: z.array(ruleSpecSchema).max(MAX_INPUT_RULES) })
  .strict();

export function readApprovalPolicyFile(path: string): RuleSpec[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new Error(`approval rules file ${path} cannot be read (${code})`, { cause: error });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new Error(`approval rules file ${path} is not JSON: ${(error as Error).message}`, { cause: error });
  }
  const parsed = approvalPolicyFileSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const field = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : '';
    throw new Error(`approval rules file ${path}: ${field}${issue?.message ?? 'invalid'}`);
  }
  return parsed.data.rules;
}

/** The policy named by KEEL_APPROVAL_RULES, if any. */
export function approvalPolicyFromEnv(env: NodeJS.ProcessEnv): RuleSpec[] | undefined {
  const path = env.KEEL_APPROVAL_RULES;
  if (path === undefined || path.trim() === '') return undefined;
  return readApprovalPolicyFile(path.trim());
}
