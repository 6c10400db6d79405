import { test } from 'node:test';
import assert from 'node:assert/strict';
import { whyFindIsNotReadOnly } from '../../src/workflows/tools/read-only-find';

/**
 * find's grammar at edges the mutation run found untested (issue 27), beside
 * read-only-find.test.ts: a parenthesis inside an expression, and -newerXY spelled exactly.
 */

const why = (...texts: string[]) => whyFindIsNotReadOnly(texts.map((text) => ({ text, active: text })));

test('a parenthesis after the expression started is an operator, not an unknown test', () => {
  assert.equal(why('.', '-name', 'a', '-o', '(', '-name', 'b', '-o', '-name', 'c', ')'), undefined);
});

test('-newerXY is a test only as the whole word: -newer and two of a B c m t, nothing before or after', () => {
  assert.equal(why('.', '-newermt', '2024-01-01'), undefined);
  assert.equal(why('.', '-newerBa', 'ref'), undefined);
  assert.equal(why('.', '-newermtx', '2024-01-01'), 'find -newermtx is not a known read-only test or action');
  assert.equal(
    why('.', '-name', 'a', 'x-newermt', 'b'),
    'find x-newermt is not a known read-only test or action',
  );
  assert.equal(why('.', '-newerxt', 'ref'), 'find -newerxt is not a known read-only test or action');
});
