import { seconds } from './chaos-environment';
import type { ChaosReport } from './run-chaos';

/**
 * The targets: the goal completes, no effect is duplicated, no approval is lost, and nothing is
 * missing that an unknown outcome does not account for.
 */
export function chaosTargetsMet(report: ChaosReport): boolean {
  return (
    report.completed &&
    report.duplicatedEffects.length === 0 &&
    report.lostApprovals.length === 0 &&
    report.unexplainedMissing.length === 0
  );
}

const list = (values: readonly (number | string)[]): string =>
  values.length === 0 ? 'none' : values.join(', ');

export function formatChaosReport(report: ChaosReport): string {
  const { undisturbed: calm, disturbed: storm } = report;
  const began = report.unknownOutcomes.map(
    (outcome) =>
      `effect-${outcome.effect ?? '?'} (began: ${String(outcome.began)}, effect ${outcome.effectPresent ? 'present' : 'absent'})`,
  );
  return [
    '',
    `chaos report (seed ${report.options.seed}, ${report.options.calls} irreversible calls)`,
    `  disruptions:        ${report.killsDone} of ${report.options.kills} worker kills, ${report.restartsDone} of ${report.options.restarts} server restarts`,
    `  completed:          ${report.completed ? 'yes' : `no (${storm.status})`}`,
    `  duplicated effects: ${report.duplicatedEffects.length} (${list(report.duplicatedEffects)})`,
    `  missing effects:    ${report.missingEffects.length} (${list(report.missingEffects)}); unexplained: ${report.unexplainedMissing.length}`,
    `  unknown outcomes:   ${report.unknownOutcomes.length}${began.length > 0 ? ` — ${began.join('; ')}` : ''}`,
    `  approvals:          ${report.approvalsSent} sent, ${report.lostApprovals.length} lost`,
    `  final state:        ${report.finalStateEqual ? 'equal to the undisturbed run' : 'differs from the undisturbed run'}`,
    `  undisturbed run:    ${calm.status}, ${seconds(calm.durationMs)}, ${calm.toolCalls} tool calls, ${calm.modelRequests} model requests`,
    `  disturbed run:      ${storm.status}, ${seconds(storm.durationMs)}, ${storm.toolCalls} tool calls, ${storm.modelRequests} model requests`,
    `  targets:            ${chaosTargetsMet(report) ? 'met' : 'NOT met'}`,
  ].join('\n');
}
