import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  DROPPED_TURNS_MARK,
  ELISION_MARK,
  fitToBudget,
  HEADROOM_SHARE,
} from '../../src/workflows/common/context-budget';
import type { TranscriptMessage } from '../../src/workflows/common/transcript';
import { capAnswer } from '../../src/activities/model/answer-cap';

/** A task, then `reads` turns of a read_file call answered with `size` characters. */
function transcriptOfReads(reads: number, size: number, task = 'TASK: read big.txt'): TranscriptMessage[] {
  const messages: TranscriptMessage[] = [{ role: 'user', content: [{ type: 'text', text: task }] }];
  for (let index = 0; index < reads; index += 1) {
    messages.push({
      role: 'assistant',
      content: [{ type: 'tool_use', id: `call-${index}`, name: 'read_file', input: { path: 'big.txt' } }],
    });
    messages.push({
      role: 'user',
      content: [
        { type: 'tool_result', tool_use_id: `call-${index}`, content: `read ${index}: ${'x'.repeat(size)}` },
      ],
    });
  }
  return messages;
}

const size = (transcript: readonly TranscriptMessage[]) => JSON.stringify(transcript).length;

test('a transcript within budget is sent unchanged', () => {
  const transcript = transcriptOfReads(3, 1000);
  const fitted = fitToBudget(transcript, { maxChars: 100_000, keepLatestMessages: 6 });
  assert.equal(fitted.elidedBlocks, 0);
  assert.deepEqual(fitted.transcript, transcript);
});

/** A task long enough to be worth eliding (blocks under 400 characters never are). */
const longTask = `TASK: read big.txt and ${'follow these instructions carefully. '.repeat(150)}`;

test('twenty 93 KB reads fit a 400,000-character budget: oldest results elided, every pair kept, the 5,500-character task whole', () => {
  assert.ok(longTask.length >= 5_500);
  const transcript = transcriptOfReads(20, 93_000, longTask);
  assert.ok(size(transcript) > 1_800_000);
  const fitted = fitToBudget(transcript, { maxChars: 400_000, keepLatestMessages: 6 });
  assert.ok(fitted.charsAfter <= 400_000, `${fitted.charsAfter}`);
  assert.equal(fitted.charsAfter, size(fitted.transcript));
  assert.equal(fitted.transcript.length, transcript.length, 'no message dropped');
  assert.deepEqual(fitted.transcript[0], transcript[0], 'the task stays whole');
  // Every tool_use still has its tool_result, in order.
  for (let index = 1; index < fitted.transcript.length; index += 2) {
    const use = fitted.transcript[index]?.content[0];
    const result = fitted.transcript[index + 1]?.content[0];
    assert.equal(use?.type, 'tool_use');
    assert.equal(result?.type === 'tool_result' && result.tool_use_id, use?.type === 'tool_use' && use.id);
  }
  // The oldest results went first; the newest are whole.
  const resultText = (index: number) => JSON.stringify(fitted.transcript[2 + 2 * index]?.content[0]);
  assert.match(resultText(0), new RegExp(ELISION_MARK.replace(/[[\]]/g, '\\$&')));
  assert.match(resultText(0), /had 93008 characters/);
  assert.ok(resultText(19).includes('x'.repeat(93_000)));
  // Deterministic: the same input gives the same cut (it runs in workflow code, and on replay).
  assert.deepEqual(fitToBudget(transcript, { maxChars: 400_000, keepLatestMessages: 6 }), fitted);
  assert.equal(
    transcript[2]?.content[0]?.type === 'tool_result' && transcript[2].content[0].content.length,
    93_008,
    'input untouched',
  );
});

test('when the newest messages alone are over budget, they are cut too, the last one keeping its head', () => {
  const transcript = transcriptOfReads(2, 300_000);
  const fitted = fitToBudget(transcript, { maxChars: 100_000, keepLatestMessages: 6 });
  assert.ok(fitted.charsAfter <= 100_000, `${fitted.charsAfter}`);
  const last = fitted.transcript.at(-1)?.content[0];
  assert.ok(last?.type === 'tool_result' && typeof last.content === 'string');
  assert.match(last.content, /^read 1: x+\n\[Elided by keel/);
});

test('large tool inputs (a written file) are elided like results, and stay objects', () => {
  const transcript: TranscriptMessage[] = [
    { role: 'user', content: [{ type: 'text', text: 'TASK' }] },
    {
      role: 'assistant',
      content: [
        { type: 'tool_use', id: 'w', name: 'write_file', input: { path: 'a', content: 'y'.repeat(50_000) } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'w', content: 'written' }] },
    ...transcriptOfReads(1, 10).slice(1),
  ];
  const fitted = fitToBudget(transcript, { maxChars: 20_000, keepLatestMessages: 2 });
  const use = fitted.transcript[1]?.content[0];
  assert.ok(use?.type === 'tool_use');
  assert.match(JSON.stringify(use.input), /^\{"elided":"\[Elided by keel/);
});

test('a model answer over the cap is cut once, with a note; one within it is untouched', () => {
  const small = [{ type: 'text' as const, text: 'done' }];
  assert.deepEqual(capAnswer(small), { content: small });
  const huge = capAnswer([
    { type: 'text', text: 'z'.repeat(3_000_000) },
    { type: 'tool_use', id: 't', name: 'write_file', input: { content: 'q'.repeat(1_000_000) } },
  ]);
  assert.ok(JSON.stringify(huge.content).length <= 200_000 + 200);
  assert.equal(huge.cutFromChars !== undefined && huge.cutFromChars > 4_000_000, true);
  assert.match(JSON.stringify(huge.content.at(-1)), /over the 200000-character limit, and was cut/);
  const use = huge.content[1];
  assert.ok(use?.type === 'tool_use');
  assert.match(JSON.stringify(use.input), /keel dropped this input/);
});

/** Every tool_use has its tool_result in the next message, and roles alternate from the task. */
function assertValidConversation(transcript: readonly TranscriptMessage[]): void {
  transcript.forEach((message, index) => {
    assert.equal(message.role, index % 2 === 0 ? 'user' : 'assistant', `message ${index}'s role`);
    for (const block of message.content) {
      if (block.type !== 'tool_use') continue;
      const answered = transcript[index + 1]?.content.some(
        (next) => next.type === 'tool_result' && next.tool_use_id === block.id,
      );
      assert.ok(answered, `${block.id} keeps its tool_result`);
    }
  });
}

test('a transcript over budget is cut to three quarters of it, so the next cut is many turns away', () => {
  const transcript = transcriptOfReads(20, 5_000);
  const fitted = fitToBudget(transcript, { maxChars: 60_000, keepLatestMessages: 6 });
  assert.ok(fitted.charsAfter <= 60_000 * HEADROOM_SHARE, `${fitted.charsAfter}`);
  assert.ok(fitted.charsAfter > 60_000 * HEADROOM_SHARE * 0.9, 'cut to the share, not far below it');
  assertValidConversation(fitted.transcript);
});

test('a long goal of small calls drops its oldest whole turns, noting how many, when eliding is not enough', () => {
  // Blocks below the elision threshold: only dropping turns can make room.
  const transcript = transcriptOfReads(3_000, 20);
  const budget = { maxChars: 100_000, keepLatestMessages: 6 };
  const first = fitToBudget(transcript, budget);
  assert.ok(first.charsAfter <= 75_000, `${first.charsAfter}`);
  assert.ok(first.droppedTurns > 0);
  assertValidConversation(first.transcript);
  assert.equal(first.transcript[0]?.content[0]?.type, 'text');
  assert.match(JSON.stringify(first.transcript[0]?.content[0]), /TASK: read big.txt/);
  const note = first.transcript[0]?.content.at(-1);
  assert.ok(note?.type === 'text' && note.text.startsWith(DROPPED_TURNS_MARK));
  assert.match(note.text, new RegExp(` ${first.droppedTurns} turns dropped`));
  // The latest turns are the ones kept.
  assert.deepEqual(first.transcript.slice(-6), transcript.slice(-6));

  // Later cuts add to the one note instead of adding notes.
  const grown = [...first.transcript, ...transcriptOfReads(1_000, 20).slice(1)];
  const second = fitToBudget(grown, budget);
  const notes = second.transcript[0]?.content.filter(
    (block) => block.type === 'text' && block.text.startsWith(DROPPED_TURNS_MARK),
  );
  assert.equal(notes?.length, 1);
  assert.match(
    JSON.stringify(notes),
    new RegExp(` ${first.droppedTurns + second.droppedTurns} turns dropped`),
  );
  assertValidConversation(second.transcript);
});

test('the size fitToBudget measures is the serialized transcript, message sizes remembered or not', () => {
  for (const transcript of [[], transcriptOfReads(0, 10), transcriptOfReads(7, 333)]) {
    const expected = JSON.stringify(transcript).length;
    assert.equal(
      fitToBudget(transcript, { maxChars: 1_000_000, keepLatestMessages: 6 }).charsBefore,
      expected,
    );
    // Asked again, the remembered sizes give the same number.
    assert.equal(
      fitToBudget(transcript, { maxChars: 1_000_000, keepLatestMessages: 6 }).charsBefore,
      expected,
    );
  }
});

test('thinking is signed: older turns lose it whole, never cut; the last assistant message keeps it', () => {
  const thinking = (turn: number) => ({
    type: 'thinking' as const,
    thinking: `t${turn} ${'y'.repeat(5000)}`,
    signature: `sig${turn}`,
  });
  const messages: TranscriptMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'TASK' }] }];
  for (let turn = 0; turn < 12; turn += 1) {
    messages.push({
      role: 'assistant',
      content: [thinking(turn), { type: 'tool_use', id: `c${turn}`, name: 'read_file', input: {} }],
    });
    messages.push({
      role: 'user',
      content: [{ type: 'tool_result', tool_use_id: `c${turn}`, content: 'ok' }],
    });
  }
  const fitted = fitToBudget(messages, { maxChars: 30_000, keepLatestMessages: 2 });
  assert.ok(fitted.charsAfter <= 30_000, `fits: ${fitted.charsAfter}`);
  const kept = fitted.transcript.flatMap((message) =>
    message.content.filter((block) => block.type === 'thinking'),
  );
  for (const block of kept) {
    const original = thinking(Number(block.signature.slice(3)));
    assert.deepEqual(block, original, 'a kept thinking block is exactly as the model sent it');
  }
  // Even when nothing else is left to cut, the tool-use loop's last answer keeps its thinking.
  const squeezed = fitToBudget(messages, { maxChars: 6000, keepLatestMessages: 2 });
  const lastAssistant = [...squeezed.transcript].reverse().find((message) => message.role === 'assistant');
  assert.equal(lastAssistant?.content[0]?.type, 'thinking', 'the tool-use loop keeps its thinking first');
  assert.ok(kept.length < 12, 'older thinking was left out');
  // Every tool_use still has its result, and no assistant message was emptied.
  for (const message of fitted.transcript) assert.ok(message.content.length > 0);
});

test('prefix stability: a long goal rewrites its cached prefix rarely, and keeps it for many turns after each trim', () => {
  let transcript: TranscriptMessage[] = [{ role: 'user', content: [{ type: 'text', text: 'TASK' }] }];
  const budget = { maxChars: 100_000, keepLatestMessages: 6 };
  const trimmedAt: number[] = [];
  for (let turn = 0; turn < 300; turn += 1) {
    const fitted = fitToBudget(transcript, budget);
    // A trim is a turn whose request no longer begins with the previous request's messages.
    if (
      fitted.transcript.some((message, index) => index < transcript.length && message !== transcript[index])
    )
      trimmedAt.push(turn);
    transcript = [
      ...fitted.transcript,
      { role: 'assistant', content: [{ type: 'tool_use', id: `c${turn}`, name: 'read_file', input: {} }] },
      {
        role: 'user',
        content: [{ type: 'tool_result', tool_use_id: `c${turn}`, content: 'r'.repeat(2000) }],
      },
    ];
  }
  assert.ok(trimmedAt.length > 0 && trimmedAt.length <= 25, `trims at turns ${trimmedAt.join(', ')}`);
  const gaps = trimmedAt.slice(1).map((turn, index) => turn - (trimmedAt[index] as number));
  assert.ok(
    gaps.every((gap) => gap >= 10),
    `turns between trims: ${gaps.join(', ')}`,
  );
});
