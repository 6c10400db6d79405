import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chaosTargetsMet, formatChaosReport } from '../../scripts/chaos/chaos-report';
import { runChaos } from '../../scripts/chaos/run-chaos';

test(
  'npm run chaos, small: worker kills and a server restart duplicate no effect and lose no approval',
  { timeout: 600_000 },
  async () => {
    const report = await runChaos({
      calls: 30,
      kills: 3,
      restarts: 1,
      seed: 7,
      minDelayMs: 300,
      maxDelayMs: 1500,
      goalTimeoutMs: 300_000,
      log: () => undefined,
    });
    const shown = formatChaosReport(report);
    // Every disruption landed while the goal ran: the run tested something.
    assert.equal(report.killsDone, 3, shown);
    assert.equal(report.restartsDone, 1, shown);
    assert.equal(report.undisturbed.status, 'completed', shown);
    assert.equal(report.completed, true, shown);
    assert.deepEqual(report.duplicatedEffects, [], shown);
    assert.deepEqual(report.lostApprovals, [], shown);
    assert.equal(report.approvalsSent, 30, shown);
    assert.deepEqual(report.unexplainedMissing, [], shown);
    for (const outcome of report.unknownOutcomes) assert.equal(outcome.began, true, shown);
    // An effect can only be missing where the goal said its outcome was unknown.
    assert.equal(report.finalStateEqual, report.missingEffects.length === 0, shown);
    assert.equal(chaosTargetsMet(report), true, shown);
  },
);
