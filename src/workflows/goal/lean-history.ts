/**
 * Runs started from this change on write fewer history events per tool call (issue #14):
 *
 * - calls of a fixed tier that need no human are prepared by the workflow itself, without the
 *   prepareToolCalls local activity (workflow-prepared-calls.ts);
 * - KeelToolCalls is written with another search attribute's change, or once it lags by
 *   TOOL_CALLS_REFRESH_STEP calls, not at every call (search-attribute-values.ts);
 * - the start's lookups (hosts, tools, worker defaults) are local activities;
 * - the context budget cuts with headroom and drops whole old turns (context-budget.ts), so
 *   model requests can extend the stored one for many turns (model-request.ts);
 * - a run hands over at keel's own history limits, under Temporal's (history-limits.ts).
 *
 * One patch for the three, deployed together: every patch costs every run two events (its marker,
 * and the TemporalChangeVersion upsert the SDK adds with it). Each user asks wf.patched once, as
 * its run starts, before any await (the SDK remembers the answer, so they all agree); asked later,
 * replay could answer differently from the live run (TMPRL1100, see goal-tool-calls.ts).
 */
export const LEAN_HISTORY_PATCH = 'lean-history-per-tool-call';
