import { userInfo } from 'node:os';

/**
 * Who a decision, a review or a move is recorded as when no name is given: $USER, else the OS
 * user (a service, cron or container sets no USER), and "cli" only when the OS names nobody.
 * The environment and the OS lookup are injectable, so tests need neither.
 */
export function defaultUserName(
  env: NodeJS.ProcessEnv = process.env,
  osUserName: () => string = () => userInfo().username,
): string {
  if (env.USER) return env.USER;
  try {
    return osUserName() || 'cli';
  } catch {
    // userInfo throws for a uid with no passwd entry (a container's arbitrary uid).
    return 'cli';
  }
}
