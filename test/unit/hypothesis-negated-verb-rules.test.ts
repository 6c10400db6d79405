import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareHypothesis } from '../../src/workflows/principles/hypothesis';
import { toolOutcomeSchema } from '../../src/workflows/tools/tool-outcome';

/**
 * The hypothesis comparator at an edge the mutation run found untested (issue 27), beside
 * hypothesis-edge-rules.test.ts: a negated output verb that ends the hypothesis.
 */

const compare = (hypothesis: string) =>
  compareHypothesis({
    hypothesis,
    outcome: toolOutcomeSchema.parse({ ok: true, content: 'a warning', facts: { emptyOutput: false } }),
  });

test('"should not print" at the end of a hypothesis expects empty output; followed by what it prints, it does not', () => {
  assert.deepEqual(compare('It should not print'), {
    verdict: 'mismatch',
    reason: 'expected empty output, but there was output',
  });
  assert.deepEqual(compare('It should not print.'), compare('It should not print'));
  // "won't print warnings" says what is not printed, not that nothing is.
  assert.deepEqual(compare('It should not print warnings'), {
    verdict: 'inconclusive',
    reason: 'the hypothesis states nothing the result can clearly confirm or refute',
  });
});
