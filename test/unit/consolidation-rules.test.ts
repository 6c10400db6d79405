import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  BELIEF_MARKER,
  beliefHeading,
  condensableThrough,
  condensedText,
  condensedTurnsIn,
  replaceWithBelief,
} from '../../src/workflows/planning/consolidation';
import type { TranscriptMessage } from '../../src/workflows/common/transcript';

/**
 * Consolidation's rules (issue 27: mutation testing; src/workflows/planning/consolidation.ts): the
 * belief's heading and how the condensed turns are read back from it (every heading summed); the
 * cut, the last condensable message walked back to a user message and never before index 2; the
 * condensed messages' text; and the transcript with the belief, counting only assistant turns.
 */

/** One message per role letter (u, a), each text of the given length. */
function transcript(roles: string, chars = 100): TranscriptMessage[] {
  return [...roles].map((role, index) => ({
    role: role === 'u' ? 'user' : 'assistant',
    content: [{ type: 'text', text: `${index}`.padEnd(chars, '.') }],
  }));
}

/** Past any target: every message but the latest kept is condensable. */
const cutOf = (roles: string, keepLatestMessages: number) =>
  condensableThrough({ transcript: transcript(roles), keepLatestMessages, targetChars: 1 });

test('the belief heading, whole', () => {
  assert.equal(BELIEF_MARKER, '[Belief from consolidated turns]');
  assert.equal(beliefHeading(7), '[Belief from consolidated turns] (replaces 7 earlier model turns)');
});

test('the condensed turns are summed over every heading in the text, numbers of any length; none is 0', () => {
  assert.equal(condensedTurnsIn(`${beliefHeading(12)} a ${beliefHeading(3)} b`), 15);
  assert.equal(condensedTurnsIn(beliefHeading(1)), 1);
  assert.equal(condensedTurnsIn('the task, never condensed'), 0);
  assert.equal(condensedTurnsIn('replaces  earlier model turns'), 0);
});

test('the cut is the last condensable message when it is a user message', () => {
  assert.equal(cutOf('uauauau', 2), 4);
  assert.equal(cutOf('uauauau', 0), 6);
});

test('the cut walks back from an assistant message to the user message before it', () => {
  assert.equal(cutOf('uauauau', 3), 2);
  assert.equal(cutOf('uauaaau', 2), 2);
});

test('a cut at index 2 is kept; one that would fall before it is none', () => {
  assert.equal(cutOf('uauau', 2), 2);
  assert.equal(cutOf('uau', 1), undefined, 'only index 1 is condensable');
  assert.equal(cutOf('uaaua', 2), undefined, 'index 2 is an assistant message, index 1 is too early');
  assert.equal(cutOf('u', 0), undefined);
  assert.equal(
    cutOf('aaaaa', 1),
    undefined,
    'the walk back stops at index 2 even with no user message below',
  );
});

test('under the target nothing is condensed; past it, the cut stops once the target is reached', () => {
  // Each message is 127 characters of JSON; the belief is estimated at 400.
  const messages = transcript('uauauauau');
  assert.equal(
    condensableThrough({ transcript: messages, keepLatestMessages: 2, targetChars: 1_144 }),
    undefined,
  );
  // 1,143 in all: 3 messages condensed leave 762 + 400 = 1,162; 4 leave 635 + 400 = 1,035 < 1,100.
  assert.equal(condensableThrough({ transcript: messages, keepLatestMessages: 2, targetChars: 1_100 }), 4);
});

test('the condensed text is messages 1 to the cut, one line each, each cut at 600 characters', () => {
  const messages = transcript('uauau', 700);
  assert.equal(
    condensedText(messages, 2),
    [`assistant: 1${'.'.repeat(587)}…`, `user: 2${'.'.repeat(592)}…`].join('\n'),
  );
  assert.equal(condensedText(transcript('uau', 5), 2), 'assistant: 1....\nuser: 2....');
});

test('the belief joins the task message with its heading; the kept messages follow; only assistant turns count', () => {
  const messages = transcript('uauauau', 3);
  assert.deepEqual(replaceWithBelief(messages, 4, 'the build needs node 20'), [
    {
      role: 'user',
      content: [
        { type: 'text', text: '0..' },
        {
          type: 'text',
          text: '[Belief from consolidated turns] (replaces 2 earlier model turns) the build needs node 20',
        },
      ],
    },
    messages[5],
    messages[6],
  ]);
  assert.deepEqual(replaceWithBelief(transcript('uaaau', 3), 2, 'b')[0]?.content[1], {
    type: 'text',
    text: '[Belief from consolidated turns] (replaces 2 earlier model turns) b',
  });
});

test('an empty transcript stays empty', () => {
  assert.deepEqual(replaceWithBelief([], 2, 'b'), []);
});
