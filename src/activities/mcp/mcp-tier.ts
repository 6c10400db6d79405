import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { Reversibility } from '../../workflows/tools/reversibility';
import type { TierDecision } from '../tools/define-tool';

/**
 * A tool's tier from its MCP annotations. MCP's defaults are the cautious ones (a tool is assumed
 * to write, and to be destructive), so only an explicit hint lowers the tier:
 * readOnlyHint true → read-only; destructiveHint false → mutating; otherwise irreversible.
 * The config's per-tool override wins: annotations are the server's claim, the config is the user's.
 */
export function tierFromAnnotations(
  annotations: ToolAnnotations | undefined,
  override: Reversibility | undefined,
): TierDecision {
  if (override !== undefined) return { tier: override, reason: `set to ${override} in the keel config` };
  if (annotations?.readOnlyHint === true) {
    return { tier: Reversibility.ReadOnly, reason: 'the server marks it readOnlyHint' };
  }
  if (annotations?.destructiveHint === false) {
    return { tier: Reversibility.Mutating, reason: 'the server marks it destructiveHint: false' };
  }
  return {
    tier: Reversibility.Irreversible,
    reason:
      annotations?.destructiveHint === true
        ? 'the server marks it destructiveHint'
        : 'the server does not mark it read-only or non-destructive (MCP assumes destructive)',
  };
}
