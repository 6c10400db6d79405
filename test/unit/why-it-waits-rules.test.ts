import { test } from 'node:test';
import assert from 'node:assert/strict';
import { whyItWaits } from '../../src/workflows/approvals/why-it-waits';

/**
 * Why a call waits for a human (issue 27: mutation testing; src/workflows/approvals/why-it-waits.ts):
 * the tool's own reason for the tier, trimmed, when it is not blank; otherwise the whole text for an
 * irreversible call, and the whole text for a mutating one under the "ask" policy.
 */

test("the tool's own reason comes first, trimmed, whatever the tier", () => {
  for (const reversibility of ['irreversible', 'mutating', 'read-only'] as const) {
    assert.equal(
      whyItWaits({ toolName: 'refund', reversibility, tierReason: '  a refund of 250 is over 50\n' }),
      'a refund of 250 is over 50',
      reversibility,
    );
  }
});

test('an irreversible call without a reason of its own: it always waits for a human', () => {
  for (const tierReason of [undefined, '', ' \t\n']) {
    assert.equal(
      whyItWaits({ toolName: 'deploy', reversibility: 'irreversible', tierReason }),
      'deploy is irreversible, and irreversible calls always wait for a human',
      JSON.stringify(tierReason),
    );
  }
});

test('a mutating call without a reason of its own: this goal asks before every change', () => {
  for (const tierReason of [undefined, '', '   ']) {
    assert.equal(
      whyItWaits({ toolName: 'write_file', reversibility: 'mutating', tierReason }),
      'write_file changes the workspace, and this goal asks before every change (approval policy "ask")',
      JSON.stringify(tierReason),
    );
  }
});
