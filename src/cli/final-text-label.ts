import { endsWithReport } from '../workflows/goal/model-turn/closing-report';
import type { GoalStatusView } from '../workflows/goal/messages';

/**
 * A goal a guard or a limit stopped ends with its closing report, not with an answer. Its own
 * light module: `keel status` prints it without loading the client (see lazy-modules.ts).
 */
export function finalTextLabel(status: GoalStatusView['status']): string {
  const reported = status !== 'terminated' && status !== 'timed_out' && endsWithReport(status);
  return reported ? 'closing report' : 'final answer';
}
