/**
 * A rule given on the command line (`keel run --allow/--allow-irreversible/--forbid`, `keel rules
 * --allow/--forbid`): parsed as goal input would parse it (approval-rule.ts), and refused when it
 * could never match a call, which goal input would take silently.
 */
import { parseRuleText, type RuleScope } from '../workflows/approvals/approval-rule';
import { TOOL_NAME_PATTERN } from '../workflows/tools/tool-catalogue';
import { CliError } from './cli-error';

export function ruleFlag(text: string, flag: string): RuleScope {
  const parsed = parseRuleText(text);
  if (!parsed.ok) throw new CliError(`${flag}: ${parsed.error}`);
  const { tool } = parsed.scope;
  // A rule names one tool exactly or every tool (`*`); tool names are [a-zA-Z0-9_-] only, so a
  // glob or a path before the colon (`github__*`, `src/**`) names no tool and matches no call.
  if (tool !== '*' && !TOOL_NAME_PATTERN.test(tool))
    throw new CliError(
      `${flag} "${text}" can match no call: no tool is named ${tool} (write tool: pattern, e.g. "write_file: src/**", or *: pattern for every tool)`,
    );
  return parsed.scope;
}
