import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DROPPED_TURNS_MARK,
  droppedTurnsIn,
  ELISION_MARK,
  fitToBudget,
  HEADROOM_SHARE,
} from '../../src/workflows/common/context-budget';
import type { ContentBlock, TranscriptMessage } from '../../src/workflows/common/transcript';

/**
 * The context budget's rules, each to the character: where a cut stops, which block goes first,
 * what a note says, how many turns are dropped. context-budget.test.ts shows them at work on
 * whole goals; these pin the numbers (issue 27: mutation testing).
 */

const task = (text = 'TASK: read the files'): TranscriptMessage => ({
  role: 'user',
  content: [{ type: 'text', text }],
});
const call = (id: string, input: Record<string, unknown> = {}): TranscriptMessage => ({
  role: 'assistant',
  content: [{ type: 'tool_use', id, name: 'read_file', input }],
});
const result = (id: string, content: string): TranscriptMessage => ({
  role: 'user',
  content: [{ type: 'tool_result', tool_use_id: id, content }],
});
/** `count` turns of a call answered by `content`. */
const turns = (count: number, content: (index: number) => string): TranscriptMessage[] =>
  Array.from({ length: count }, (_, index) => [
    call(`c${index}`),
    result(`c${index}`, content(index)),
  ]).flat();

const size = (transcript: readonly TranscriptMessage[]) => JSON.stringify(transcript).length;

/**
 * `count` turns of about 800 characters after a short task, none worth eliding: each block is
 * under 400 characters.
 */
const smallTurns = (count = 20): TranscriptMessage[] => [
  task(),
  ...Array.from({ length: count }, (_, index) => {
    const id = `c${String(index).padStart(2, '0')}`;
    return [call(id, { path: 'p'.repeat(300) }), result(id, 'r'.repeat(330))];
  }).flat(),
];
/** The room the dropped-turns note is given beyond what must go: its mark and 200 characters. */
const NOTE_ROOM = DROPPED_TURNS_MARK.length + 200;
const droppedNote = (turns: number): ContentBlock => ({
  type: 'text',
  text: `${DROPPED_TURNS_MARK} ${turns} turn${turns === 1 ? '' : 's'} dropped after this task. What they found is in the later turns or can be looked up again.]`,
});

/** The smallest budget whose cut aims at exactly `target` characters (HEADROOM_SHARE of it, floored). */
function budgetAiming(target: number, keepLatestMessages: number) {
  let maxChars = Math.floor(target / HEADROOM_SHARE);
  while (Math.floor(maxChars * HEADROOM_SHARE) < target) maxChars += 1;
  assert.equal(Math.floor(maxChars * HEADROOM_SHARE), target);
  return { maxChars, keepLatestMessages };
}

/** What the model reads in place of an elided block's content. */
const note = (what: string, length: number, kept = 0) =>
  `${ELISION_MARK} ${what} had ${length} characters${kept > 0 ? `; the first ${kept} are above` : ''}. Call the tool again if you need it.]`;

/** `transcript` with the content of message `index`'s first block (a tool result) replaced by `content`. */
function withResult(
  transcript: readonly TranscriptMessage[],
  index: number,
  content: string,
): TranscriptMessage[] {
  return transcript.map((message, at) => {
    if (at !== index) return message;
    const [block] = message.content;
    assert.ok(block?.type === 'tool_result');
    return { ...message, content: [{ ...block, content }] };
  });
}

test('a transcript exactly at its budget is sent unchanged; one character over, it is cut', () => {
  const transcript = [task(), ...turns(3, () => 'x'.repeat(1000))];
  const atBudget = fitToBudget(transcript, { maxChars: size(transcript), keepLatestMessages: 2 });
  assert.deepEqual(atBudget, {
    transcript,
    elidedBlocks: 0,
    droppedTurns: 0,
    charsBefore: size(transcript),
    charsAfter: size(transcript),
  });
  const over = fitToBudget(transcript, { maxChars: size(transcript) - 1, keepLatestMessages: 2 });
  assert.equal(over.elidedBlocks, 2, 'cut to three quarters: the two older results');
});

test('the cut stops at its target to the character: the oldest result alone when that reaches it, no turn dropped', () => {
  const transcript = [task(), ...turns(3, () => 'x'.repeat(10_000))];
  const oldestElided = withResult(transcript, 2, note('this tool result', 10_000));
  const exact = fitToBudget(transcript, budgetAiming(size(oldestElided), 2));
  assert.deepEqual(exact, {
    transcript: oldestElided,
    elidedBlocks: 1,
    droppedTurns: 0,
    charsBefore: size(transcript),
    charsAfter: size(oldestElided),
  });
  // One character lower, the next oldest goes too.
  const lower = fitToBudget(transcript, budgetAiming(size(oldestElided) - 1, 2));
  assert.deepEqual(lower.transcript, withResult(oldestElided, 4, note('this tool result', 10_000)));
  assert.equal(lower.elidedBlocks, 2);
});

test('within one message the cut stops at its target too: of two parallel results, the first alone when that reaches it', () => {
  const parallel: TranscriptMessage[] = [
    {
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'p1', name: 'read_file', input: {} },
        { type: 'tool_use', id: 'p2', name: 'read_file', input: {} },
      ],
    },
    {
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: 'p1', content: 'x'.repeat(10_000) },
        { type: 'tool_result', tool_use_id: 'p2', content: 'x'.repeat(10_000) },
      ],
    },
  ];
  const transcript = [task(), ...parallel, ...turns(1, () => 'ok')];
  const firstElided = transcript.map((message, index) =>
    index === 2
      ? {
          ...message,
          content: [
            { type: 'tool_result' as const, tool_use_id: 'p1', content: note('this tool result', 10_000) },
            ...message.content.slice(1),
          ],
        }
      : message,
  );
  const fitted = fitToBudget(transcript, budgetAiming(size(firstElided), 2));
  assert.deepEqual(fitted.transcript, firstElided);
  assert.equal(fitted.elidedBlocks, 1);
});

test('the kept latest messages are cut only after the old turns are dropped', () => {
  const kept = [call('big', { content: 'k'.repeat(3000) }), result('big', 'written')];
  const transcript = [...smallTurns(10), ...kept];
  const fitted = fitToBudget(transcript, { maxChars: 6000, keepLatestMessages: 2 });
  assert.ok(fitted.droppedTurns > 0);
  assert.equal(fitted.elidedBlocks, 0);
  assert.deepEqual(fitted.transcript.slice(-2), kept);
  assert.ok(fitted.charsAfter <= 4500, `${fitted.charsAfter}`);
});

/** An assistant message that thought before calling. */
function thoughtCall(id: string, input: Record<string, unknown> = {}): TranscriptMessage {
  return {
    role: 'assistant',
    content: [
      { type: 'thinking', thinking: `about ${id}: ${'t'.repeat(2000)}`, signature: `sig-${id}` },
      { type: 'tool_use', id, name: 'read_file', input },
    ],
  };
}

test("an older turn's thinking is left out whole, its comma counted: exactly at the target, one block and no turn dropped", () => {
  const transcript = [task(), thoughtCall('a'), result('a', 'ok'), thoughtCall('b'), result('b', 'ok')];
  const withoutOldThinking = transcript.map((message, index) =>
    index === 1 ? { ...message, content: message.content.slice(1) } : message,
  );
  const fitted = fitToBudget(transcript, budgetAiming(size(withoutOldThinking), 2));
  assert.deepEqual(fitted, {
    transcript: withoutOldThinking,
    elidedBlocks: 1,
    droppedTurns: 0,
    charsBefore: size(transcript),
    charsAfter: size(withoutOldThinking),
  });
});

test('after leaving thinking out, the block that moved into its place is looked at too', () => {
  const big = { content: 'w'.repeat(2000) };
  const transcript = [task(), thoughtCall('a', big), result('a', 'ok'), thoughtCall('b'), result('b', 'ok')];
  const elidedInput = { elided: note('this tool input', JSON.stringify(big).length) };
  const expected = transcript.map((message, index) =>
    index === 1
      ? {
          ...message,
          content: [{ type: 'tool_use' as const, id: 'a', name: 'read_file', input: elidedInput }],
        }
      : message,
  );
  const fitted = fitToBudget(transcript, budgetAiming(size(expected), 2));
  assert.deepEqual(fitted.transcript, expected);
  assert.equal(fitted.elidedBlocks, 2);
  assert.equal(fitted.droppedTurns, 0);
});

test('the last message keeps the head of its result that fits with 400 characters to spare for the note', () => {
  const transcript = [task(), call('c'), result('c', 'x'.repeat(5000))];
  const budget = { maxChars: 4000, keepLatestMessages: 2 };
  const target = Math.floor(budget.maxChars * HEADROOM_SHARE);
  const block = transcript[2]?.content[0] as ContentBlock;
  const kept = JSON.stringify(block).length - (size(transcript) - target) - 400;
  const fitted = fitToBudget(transcript, budget);
  assert.deepEqual(
    fitted.transcript,
    withResult(transcript, 2, `${'x'.repeat(kept)}\n${note('this tool result', 5000, kept)}`),
  );
  assert.ok(fitted.charsAfter <= target, `${fitted.charsAfter} > ${target}`);
});

/** A tool result block whose JSON is exactly `chars` characters. */
function resultOfSize(id: string, chars: number): TranscriptMessage {
  const overhead = JSON.stringify(result(id, '').content[0]).length;
  const message = result(id, 'y'.repeat(chars - overhead));
  assert.equal(JSON.stringify(message.content[0]).length, chars);
  return message;
}

test('a block of 400 characters is worth eliding; one of 399 is never elided', () => {
  const fit = (blockChars: number) =>
    fitToBudget([task(), call('c'), resultOfSize('c', blockChars), call('d'), result('d', 'ok')], {
      maxChars: 100,
      keepLatestMessages: 4,
    });
  const at400 = fit(400);
  assert.equal(at400.elidedBlocks, 1);
  assert.match(JSON.stringify(at400.transcript[2]), /had \d+ characters\. Call the tool again/);
  const at399 = fit(399);
  assert.equal(at399.elidedBlocks, 0);
  assert.deepEqual(at399.transcript[2], resultOfSize('c', 399));
});

test('a block that eliding would not make smaller is left as it is', () => {
  // A result whose content is exactly as long as the note that would replace it, behind a tool_use
  // id long enough to make the block worth eliding.
  const id = `c-${'i'.repeat(300)}`;
  const probeLength = note('this tool result', 100).length; // three digits, like the length itself
  const sameSize = result(id, 'z'.repeat(probeLength));
  assert.equal(note('this tool result', probeLength).length, probeLength);
  assert.ok(JSON.stringify(sameSize.content[0]).length >= 400);
  const transcript = [task(), call(id), sameSize, call('d'), result('d', 'ok')];
  const fitted = fitToBudget(transcript, { maxChars: 100, keepLatestMessages: 4 });
  assert.equal(fitted.elidedBlocks, 0);
  assert.deepEqual(fitted.transcript, transcript);
});

test('the task alone over budget is sent whole: the task message is never cut', () => {
  const alone = [task(`TASK: ${'q'.repeat(5000)}`)];
  assert.deepEqual(fitToBudget(alone, { maxChars: 1000, keepLatestMessages: 2 }).transcript, alone);
  // Nothing droppable either (every turn is kept): no note of "0 turns" joins the task.
  const kept = [task(`TASK: ${'q'.repeat(5000)}`), call('c'), result('c', 'ok')];
  const fitted = fitToBudget(kept, { maxChars: 1000, keepLatestMessages: 2 });
  assert.deepEqual(fitted.transcript, kept);
  assert.equal(fitted.droppedTurns, 0);
});

test('the oldest turns are dropped, the fewest whose characters cover the excess plus room for the note', () => {
  const transcript = smallTurns();
  for (const block of transcript.flatMap((message) => message.content))
    assert.ok(JSON.stringify(block).length < 400, 'no block is worth eliding');
  // A turn's characters in the transcript: its two messages and their two commas.
  const pair = JSON.stringify(transcript[1]).length + JSON.stringify(transcript[2]).length + 2;
  for (const dropped of [6, 8]) {
    // The excess and the note's room come to exactly `dropped` turns.
    const target = size(transcript) + NOTE_ROOM - dropped * pair;
    const fitted = fitToBudget(transcript, budgetAiming(target, 2));
    assert.equal(fitted.droppedTurns, dropped);
    assert.equal(fitted.elidedBlocks, 0);
    assert.deepEqual(fitted.transcript.slice(1), transcript.slice(1 + 2 * dropped), 'the oldest turns went');
    assert.deepEqual(fitted.transcript[0]?.content, [
      ...(transcript[0]?.content ?? []),
      droppedNote(dropped),
    ]);
  }
});

test('a single dropped turn is noted as "1 turn"', () => {
  const transcript = smallTurns(2);
  const fitted = fitToBudget(transcript, { maxChars: 100, keepLatestMessages: 2 });
  assert.equal(fitted.droppedTurns, 1);
  assert.deepEqual(fitted.transcript, [
    { ...transcript[0], content: [...(transcript[0]?.content ?? []), droppedNote(1)] },
    ...transcript.slice(3),
  ]);
});

test('the kept latest messages are never dropped: with three kept, the turn holding the first of them stays', () => {
  const transcript = smallTurns();
  const fitted = fitToBudget(transcript, { maxChars: 100, keepLatestMessages: 3 });
  assert.equal(fitted.elidedBlocks, 0);
  assert.equal(fitted.droppedTurns, 18);
  assert.deepEqual(fitted.transcript.slice(1), transcript.slice(-4));
});

test('only a model answer followed by the reply to it is dropped as a turn: out of that shape, nothing is', () => {
  const twoReplies = [task(), result('x', 'orphan'), result('y', 'orphan'), ...turns(5, () => 'r')];
  assert.deepEqual(fitToBudget(twoReplies, { maxChars: 100, keepLatestMessages: 2 }).transcript, twoReplies);
  const twoAnswers = [task(), call('x'), call('y'), result('y', 'r'), ...turns(5, () => 'r')];
  assert.deepEqual(fitToBudget(twoAnswers, { maxChars: 100, keepLatestMessages: 2 }).transcript, twoAnswers);
});

test("each elided block's note names what it was and how long, text, input or result (images named in it)", () => {
  const long = 'l'.repeat(1000);
  const transcript: TranscriptMessage[] = [
    task(),
    {
      role: 'assistant',
      content: [
        { type: 'text', text: long },
        { type: 'tool_use', id: 'w', name: 'write_file', input: { content: long } },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'w',
          content: [
            { type: 'text', text: long },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA'.repeat(100) } },
          ],
        },
      ],
    },
    call('d'),
    result('d', 'ok'),
  ];
  // Four kept: nothing is dropped, and the blocks before the last message are elided whole.
  const fitted = fitToBudget(transcript, { maxChars: 100, keepLatestMessages: 4 });
  assert.deepEqual(fitted.transcript.slice(1, 3), [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: note('this text', 1000) },
        {
          type: 'tool_use',
          id: 'w',
          name: 'write_file',
          input: { elided: note('this tool input', JSON.stringify({ content: long }).length) },
        },
      ],
    },
    {
      role: 'user',
      content: [
        {
          type: 'tool_result',
          tool_use_id: 'w',
          content: note('this tool result', `${long}\n[image image/png]`.length),
        },
      ],
    },
  ]);
});

test('droppedTurnsIn reads the count right after the mark, "1 turn" too, and 0 without the mark', () => {
  assert.equal(droppedTurnsIn(`task\n${DROPPED_TURNS_MARK} 1 turn dropped after this task.]`), 1);
  assert.equal(droppedTurnsIn(`${DROPPED_TURNS_MARK} 12 turns dropped after this task.]`), 12);
  assert.equal(droppedTurnsIn(`${DROPPED_TURNS_MARK} (see below) 3 turns dropped`), 0, 'not right after it');
  // Without the mark, no count, even where text sits as if after one.
  const lookalike = `${'x'.repeat(DROPPED_TURNS_MARK.length - 1)} 5 turns dropped`;
  assert.equal(droppedTurnsIn(lookalike), 0);
});
