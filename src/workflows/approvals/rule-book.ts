import { approverAllowed, type Approvers } from './approval-authority';
import {
  MAX_RULES,
  RULES_SCHEMA_VERSION,
  RuleEffect,
  RuleSource,
  ruleText,
  type ApprovalRule,
  type ApprovalRulesState,
  type RuleScope,
} from './approval-rule';
import { globMatches } from './rule-pattern';
import { normalizedPath, ruleSubject, subjectText, type RuleSubject } from './rule-subject';

/**
 * Which rule decides a call, and the list's changes (add, revoke). Pure: the workflow asks in its
 * lanes and in signal/Update handlers, and replay must get the same answers from the same state.
 *
 * A forbid rule wins over any allow rule. An allow rule covers a call only when it is in force
 * (not revoked, not past its `until`), names the call's tool (or `*`), matches its subject, covers
 * its tier (irreversible calls need a rule that says so), and — for rules a human made after the
 * start — its maker may decide calls of that tier under the goal's approvers policy.
 */

export interface CallForRules {
  toolName: string;
  input: unknown;
  reversibility: 'read-only' | 'mutating' | 'irreversible';
}

export interface RuleContext {
  nowMs: number;
  workspace?: string;
  approvers: Approvers;
}

export interface RuleVerdict {
  effect: RuleEffect;
  rule: ApprovalRule;
}

export function emptyRules(): ApprovalRulesState {
  return { schemaVersion: RULES_SCHEMA_VERSION, nextNumber: 1, rules: [] };
}

/** The rule that decides this call now, if any: a forbid rule first, then an allow rule. */
export function ruleFor(
  state: ApprovalRulesState | undefined,
  call: CallForRules,
  context: RuleContext,
): RuleVerdict | undefined {
  if (state === undefined || state.rules.length === 0) return undefined;
  const subject = ruleSubject(call.toolName, call.input, context.workspace);
  const inForce = state.rules.filter((rule) => isInForce(rule, context.nowMs));
  const forbid = inForce.find(
    (rule) =>
      rule.effect === RuleEffect.Forbid && forbidMatches(rule, call.toolName, subject, context.workspace),
  );
  if (forbid !== undefined) return { effect: RuleEffect.Forbid, rule: forbid };
  const allow = inForce.find(
    (rule) =>
      rule.effect === RuleEffect.Allow &&
      allowMatches(rule, call.toolName, subject, context.workspace) &&
      coversTier(rule, call.reversibility, context.approvers),
  );
  return allow === undefined ? undefined : { effect: RuleEffect.Allow, rule: allow };
}

/**
 * Why a rule given with a decision would not cover the call it decides, or undefined when it
 * does. A rule that does not cover its own call is a typo (`npm tset*`) the human would discover
 * only when the next call asks again, so it is refused with the decision instead.
 */
export function whyScopeMissesCall(
  scope: RuleScope,
  effect: RuleEffect,
  call: CallForRules,
  workspace?: string,
) {
  const subject = ruleSubject(call.toolName, call.input, workspace);
  const probe = { ...scope, effect } as ApprovalRule;
  if (effect === RuleEffect.Forbid) {
    return forbidMatches(probe, call.toolName, subject, workspace)
      ? undefined
      : `the rule ${ruleText(probe)} does not match this call (${call.toolName}: ${subjectText(subject)})`;
  }
  if (subject.kind === 'command' && subject.notCoverable !== undefined) {
    return `no rule can approve this command for later calls: ${subject.notCoverable}`;
  }
  if (!allowMatches(probe, call.toolName, subject, workspace)) {
    return `the rule ${ruleText(probe)} does not match this call (${call.toolName}: ${subjectText(subject)})`;
  }
  if (call.reversibility === 'irreversible' && !scope.irreversible) {
    return 'this call is irreversible: a rule covers irreversible calls only when it says so (irreversible: true, --irreversible)';
  }
  return undefined;
}

/** The pattern a rule for exactly this call names: its command, path or input. */
export function exactPatternFor(call: CallForRules, workspace?: string): string {
  return escapeGlob(subjectText(ruleSubject(call.toolName, call.input, workspace)));
}

/**
 * Why no allow rule can name exactly this call, or undefined when one can. A pattern has no
 * escape for `*` and `?`, so the "exact" pattern of a path `.en?` would also approve `.env`: a
 * model could ask for an odd-looking call a human approves for good, then use its wildcard.
 * (A forbid rule made so refuses a little more than its call, which is the safe side.)
 */
export function whyNoExactAllowRule(call: CallForRules, workspace?: string): string | undefined {
  const text = subjectText(ruleSubject(call.toolName, call.input, workspace));
  if (!/[*?]/.test(text)) return undefined;
  return `no rule can approve exactly this call for later calls: "${text}" holds * or ?, which a rule reads as a wildcard (approve it alone, or give the rule's pattern yourself)`;
}

export type RuleDraft = RuleScope & {
  effect: RuleEffect;
  source: RuleSource;
  by: string;
  reason: string;
  createdAt: string;
  fromCallId?: string;
  signed?: boolean;
};

export function addRule(
  state: ApprovalRulesState | undefined,
  draft: RuleDraft,
): { ok: true; state: ApprovalRulesState; rule: ApprovalRule } | { ok: false; error: string } {
  const current = state ?? emptyRules();
  if (current.rules.length >= MAX_RULES) {
    return { ok: false, error: `this goal already holds ${MAX_RULES} rules; revoke some first` };
  }
  const rule: ApprovalRule = { ...draft, id: `rule-${current.nextNumber}` };
  return {
    ok: true,
    rule,
    state: { ...current, nextNumber: current.nextNumber + 1, rules: [...current.rules, rule] },
  };
}

export function revokeRule(
  state: ApprovalRulesState | undefined,
  revocation: { id: string; by: string; at: string; reason: string },
): { ok: true; state: ApprovalRulesState; rule: ApprovalRule } | { ok: false; error: string } {
  const rule = state?.rules.find((candidate) => candidate.id === revocation.id);
  if (state === undefined || rule === undefined)
    return { ok: false, error: `this goal has no rule ${revocation.id}` };
  if (rule.revoked !== undefined) {
    return {
      ok: false,
      error: `${revocation.id} was already revoked by ${rule.revoked.by} at ${rule.revoked.at}`,
    };
  }
  const revoked: ApprovalRule = {
    ...rule,
    revoked: { by: revocation.by, at: revocation.at, reason: revocation.reason },
  };
  return {
    ok: true,
    rule: revoked,
    state: { ...state, rules: state.rules.map((candidate) => (candidate === rule ? revoked : candidate)) },
  };
}

export function isInForce(rule: ApprovalRule, nowMs: number): boolean {
  if (rule.revoked !== undefined) return false;
  return rule.until === undefined || Date.parse(rule.until) > nowMs;
}

/** Rules made by a human after the start answer to the goal's approvers policy like decisions. */
function coversTier(rule: ApprovalRule, reversibility: CallForRules['reversibility'], approvers: Approvers) {
  if (reversibility === 'irreversible' && !rule.irreversible) return false;
  if (rule.source !== RuleSource.Decision && rule.source !== RuleSource.Added) return true;
  if (reversibility === 'read-only') return true;
  return approverAllowed(approvers, reversibility, rule.by);
}

function namesTool(rule: ApprovalRule, toolName: string): boolean {
  return rule.tool === '*' || rule.tool === toolName;
}

/** An allow rule covers one plain command, a path, or an input; `*` alone covers every call. */
function allowMatches(
  rule: ApprovalRule,
  toolName: string,
  subject: RuleSubject,
  workspace: string | undefined,
): boolean {
  if (!namesTool(rule, toolName)) return false;
  if (subject.kind === 'command') {
    if (subject.notCoverable !== undefined || subject.commands.length !== 1) return false;
    return rule.pattern === '*' || globMatches(squeeze(rule.pattern), subject.commands[0] ?? '', 'text');
  }
  if (rule.pattern === '*') return true;
  if (subject.kind === 'path')
    return globMatches(normalizedPattern(rule.pattern, workspace), subject.path, 'path');
  return globMatches(rule.pattern, subject.text, 'text');
}

/**
 * A forbid rule refuses a command when its pattern matches from any word of any part of it: each
 * simple command, the line as written, and each piece between `;`, `&`, `|`, newlines, backquotes,
 * parentheses and braces (`echo $(rm -rf ~)`, `(rm x)`, `{ rm x; }`), each also with its quotes and
 * backslashes removed (`sh -c 'rm x'`, `r\m x`). From any word, because programs run their
 * arguments (`sudo rm x`, `xargs rm`, `x=1 rm x`, `if true; then rm x; fi`) and keel cannot know
 * which do: `rm *` refuses `echo rm x` too. Erring this way costs a refusal, never a run.
 */
function forbidMatches(
  rule: ApprovalRule,
  toolName: string,
  subject: RuleSubject,
  workspace: string | undefined,
): boolean {
  if (!namesTool(rule, toolName)) return false;
  if (rule.pattern === '*') return true;
  if (subject.kind === 'path')
    return globMatches(normalizedPattern(rule.pattern, workspace), subject.path, 'path');
  if (subject.kind === 'input') return globMatches(rule.pattern, subject.text, 'text');
  // `* ` before the pattern and a space before each piece: the pattern may start at any word,
  // the first included. One table pass per distinct piece, so matching stays linear in the line.
  const fromAnyWord = `* ${squeeze(rule.pattern)}`;
  return forbidPieces(subject).some((piece) => globMatches(fromAnyWord, ` ${piece}`, 'text'));
}

/**
 * Worked out once per call, not once per rule: a long line and many rules would otherwise split
 * the line again for each rule. Keyed by the subject object, so nothing outlives the call.
 */
const piecesOfSubject = new WeakMap<RuleSubject, string[]>();

/** The distinct non-empty parts of a command line a forbid rule is matched against, blanks squeezed. */
function forbidPieces(subject: Extract<RuleSubject, { kind: 'command' }>): string[] {
  const known = piecesOfSubject.get(subject);
  if (known !== undefined) return known;
  const parts = [...subject.commands, subject.raw, ...subject.raw.split(/[;&|\n`(){}]+/)];
  const pieces = new Set<string>();
  for (const part of parts) {
    pieces.add(squeeze(part));
    pieces.add(squeeze(part.replace(/['"\\]/g, '')));
  }
  pieces.delete('');
  const result = [...pieces];
  piecesOfSubject.set(subject, result);
  return result;
}

/**
 * A path pattern resolved like the paths it is matched against (`./src/**` is `src/**`): in the
 * workspace too, so `/ws/.env` and `/ws/secrets/**` name the paths the calls' `.env` and
 * `/ws/secrets/key` are read as (relative), and a forbid rule written with the absolute path refuses.
 */
function normalizedPattern(pattern: string, workspace: string | undefined): string {
  const globbed = /[*?]/.test(pattern);
  if (!globbed) return normalizedPath(pattern, workspace);
  return withinWorkspace(pattern, workspace)
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '');
}

/** A glob pattern under the workspace root, relative to it; any other pattern as written. */
function withinWorkspace(pattern: string, workspace: string | undefined): string {
  if (workspace === undefined || workspace === '') return pattern;
  const root = workspace.endsWith('/') ? workspace.slice(0, -1) : workspace;
  return pattern.startsWith(`${root}/`) ? pattern.slice(root.length + 1) : pattern;
}

function squeeze(text: string): string {
  return text.replace(/[ \t]+/g, ' ').trim();
}

/** A subject as a pattern that matches only itself: its glob characters are not wildcards here. */
function escapeGlob(text: string): string {
  return text.replace(/[*?]/g, '?');
}
