import { Context } from '@temporalio/activity';

/** The current activity's context, or undefined when a function is called directly (unit tests). */
export function activityContextOrUndefined(): Context | undefined {
  try {
    return Context.current();
  } catch {
    return undefined;
  }
}

/** A third of the heartbeat timeout, so two heartbeats may be lost before the server gives up. */
export function heartbeatIntervalMs(context: { info: { heartbeatTimeoutMs?: number } }): number {
  const timeout = context.info.heartbeatTimeoutMs;
  return timeout ? Math.max(100, Math.floor(timeout / 3)) : 10_000;
}
