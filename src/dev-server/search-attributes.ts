/**
 * Custom search attributes keel keeps current on every goal, so the Web UI can filter goals
 * (e.g. `KeelPendingApprovals > 0`). The dev server registers them at start; for other clusters
 * the README shows the `temporal operator search-attribute create` commands.
 *
 * SQL visibility stores (the dev server's SQLite among them) allow only three custom Int
 * attributes per namespace, so priority, the fourth number, is a Double.
 */
export const KEEL_SEARCH_ATTRIBUTES = {
  KeelStatus: 'Keyword',
  KeelPhase: 'Keyword',
  KeelToolCalls: 'Int',
  KeelPlanAttempt: 'Int',
  KeelPendingApprovals: 'Int',
  KeelPriority: 'Double',
} as const;
