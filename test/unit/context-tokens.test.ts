import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  IMAGE_TOKENS,
  PDF_TOKENS_MIN,
  UNKNOWN_MODEL_WINDOW_TOKENS,
  charBudgetForTokens,
  charsOf,
  estimateTokens,
  expectedTokens,
  measureContext,
  requestTokenLimit,
  tooLongFigures,
} from '../../src/workflows/common/context-tokens';
import type { TranscriptMessage } from '../../src/workflows/common/transcript';

/**
 * The context budget in tokens (issue 42 item 5): a conservative estimate of what was added since
 * the API last counted, the API's own count for the rest, and the window of the goal's models.
 */

const prose = 'The quick brown fox jumps over the lazy dog and keeps on running. '.repeat(100);
const minifiedJson = JSON.stringify(
  Array.from({ length: 200 }, (_, index) => ({
    id: `item-${index}`,
    hash: (index * 7919).toString(36),
    ok: true,
  })),
);
const base64 = Buffer.from(Array.from({ length: 3000 }, (_, index) => (index * 31) % 256)).toString('base64');
const chinese = '上下文预算按标记计算而不是按字符计算'.repeat(100);

test('prose is counted at about three characters a token: above what tokenizers count (about four)', () => {
  const tokens = estimateTokens(prose);
  assert.ok(tokens >= prose.length / 4, `${tokens} tokens for ${prose.length} characters`);
  assert.ok(tokens <= prose.length / 2.5, `${tokens} tokens for ${prose.length} characters`);
});

test('dense runs (minified JSON, base64) count at least a token per two characters', () => {
  for (const [name, text] of [
    ['minified JSON', minifiedJson],
    ['base64', base64],
  ] as const) {
    const tokens = estimateTokens(text);
    assert.ok(tokens >= text.length / 2, `${name}: ${tokens} tokens for ${text.length} characters`);
    assert.ok(
      tokens > estimateTokens(prose.slice(0, text.length)),
      `${name} counts above prose of its length`,
    );
  }
});

test('every character beyond ASCII is a token of its own; a long run of one repeated character is not dense', () => {
  assert.equal(estimateTokens(chinese), chinese.length);
  assert.equal(estimateTokens('😀'), 2, 'an emoji is two UTF-16 units');
  const repeated = 'x'.repeat(3000);
  assert.equal(estimateTokens(repeated), 1000);
  assert.equal(estimateTokens(''), 0);
});

const message = (role: 'user' | 'assistant', text: string): TranscriptMessage => ({
  role,
  content: [{ type: 'text', text }],
});

test('the API’s count holds while the messages it covered are unchanged; what came since is estimated', () => {
  const transcript = [message('user', 'task'), message('assistant', prose)];
  const measure = measureContext(transcript, { inputTokensOfAllKinds: 5000, outputTokens: 700 });
  assert.deepEqual(measure, { tokens: 5700, messages: 2, chars: charsOf(transcript) });
  assert.equal(expectedTokens(transcript, 'system and tools', measure), 5700, 'nothing added');
  const added = message('user', minifiedJson);
  const later = [...transcript, added];
  assert.equal(
    expectedTokens(later, 'system and tools', measure),
    5700 + estimateTokens(JSON.stringify(added)),
    'the count plus the added message',
  );
});

test('a changed message (a trim) or a shorter transcript voids the count: the whole request is estimated', () => {
  const transcript = [message('user', 'task'), message('assistant', prose)];
  const measure = measureContext(transcript, { inputTokensOfAllKinds: 5000, outputTokens: 700 });
  const trimmed = [message('user', 'task'), message('assistant', 'elided')];
  const whole =
    estimateTokens('overhead') +
    estimateTokens(JSON.stringify(trimmed[0])) +
    estimateTokens(JSON.stringify(trimmed[1]));
  assert.equal(expectedTokens(trimmed, 'overhead', measure), whole);
  const shorter = [message('user', 'task')];
  assert.equal(
    expectedTokens(shorter, 'overhead', measure),
    estimateTokens('overhead') + estimateTokens(JSON.stringify(shorter[0])),
  );
  assert.equal(expectedTokens(trimmed, 'overhead'), whole, 'no count at all');
});

test('a request may fill the smallest window of the goal’s models, less the answer’s room', () => {
  assert.equal(requestTokenLimit({ models: ['claude-sonnet-4-5'], maxTokens: 4096 }), 200_000 - 4096);
  assert.equal(requestTokenLimit({ models: ['claude-opus-4-6'], maxTokens: 4096 }), 1_000_000 - 4096);
  assert.equal(
    requestTokenLimit({ models: ['claude-opus-4-6', 'claude-haiku-4-5'], maxTokens: 4096 }),
    200_000 - 4096,
    'a fallback with a smaller window rules',
  );
  assert.equal(
    requestTokenLimit({ models: ['someone-elses-model'], maxTokens: 1000 }),
    UNKNOWN_MODEL_WINDOW_TOKENS - 1000,
  );
  assert.equal(
    requestTokenLimit({ models: ['claude-opus-4-6'], windowTokens: 32_000, maxTokens: 1000 }),
    31_000,
    'the setting over the table',
  );
  assert.equal(
    requestTokenLimit({ models: ['claude-sonnet-4-5'], maxTokens: 150_000 }),
    100_000,
    'an answer room over half the window leaves the request half',
  );
});

test('the character budget scales the transcript by the tokens to lose, the system and tools kept', () => {
  assert.equal(
    charBudgetForTokens({ transcriptChars: 100_000, expected: 9000, overheadTokens: 1000, limit: 9000 }),
    undefined,
  );
  // 8,000 transcript tokens in 100,000 characters must become 4,000: 50,000 characters.
  assert.equal(
    charBudgetForTokens({ transcriptChars: 100_000, expected: 9000, overheadTokens: 1000, limit: 5000 }),
    50_000,
  );
  assert.equal(
    charBudgetForTokens({ transcriptChars: 100_000, expected: 9000, overheadTokens: 6000, limit: 5000 }),
    0,
    'nothing of the transcript fits',
  );
});

test('the refusal’s figures are read from the API’s words, and only when they say too long', () => {
  assert.deepEqual(
    tooLongFigures(
      'model endpoint answered 400: invalid_request_error: prompt is too long: 208310 tokens > 200000 maximum',
    ),
    {
      tokens: 208_310,
      maximum: 200_000,
    },
  );
  assert.equal(
    tooLongFigures('model endpoint answered 413: request_too_large: Request exceeds the maximum size'),
    undefined,
  );
  assert.equal(
    tooLongFigures('prompt is too long: 100 tokens > 200 maximum'),
    undefined,
    'not over: not figures',
  );
});

test('images and PDFs count by what they are, not by their base64; signatures are not counted', () => {
  const data = Buffer.alloc(150_000, 1).toString('base64') + base64;
  const withImage: TranscriptMessage = {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data } }],
      },
    ],
  };
  const transcript = [message('user', 'task'), withImage];
  const frame = estimateTokens(JSON.stringify(transcript[0])) + 1000; // the blocks' JSON, generously
  const tokens = expectedTokens(transcript, '');
  assert.ok(tokens >= IMAGE_TOKENS && tokens <= IMAGE_TOKENS + frame, `an image: ${tokens} tokens`);
  const withPdf: TranscriptMessage = {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_2',
        content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } }],
      },
    ],
  };
  const pdf = expectedTokens([message('user', 'task'), withPdf], '');
  assert.ok(pdf >= (data.length * 3) / 4 / 4, `a PDF: a token for four bytes at least (${pdf})`);
  assert.ok(
    expectedTokens([message('user', 'task'), { ...withPdf, content: [] }], '') + PDF_TOKENS_MIN <= pdf,
  );
  const signed: TranscriptMessage = {
    role: 'assistant',
    content: [{ type: 'thinking', thinking: 'short', signature: base64 }],
  };
  const unsigned: TranscriptMessage = {
    role: 'assistant',
    content: [{ type: 'thinking', thinking: 'short', signature: '' }],
  };
  assert.equal(
    expectedTokens([signed], ''),
    expectedTokens([unsigned], ''),
    'a signature is not text the window holds',
  );
});

test('the estimate’s rules, exactly: runs split on whitespace, dense from 32 characters of 16 kinds', () => {
  assert.equal(estimateTokens('abcdefghijklmnopqrst'), 7, '20 varied characters: plain, 3 a token');
  const dense32 = 'abcdefghijklmnopqrstuvwxyz012345';
  assert.equal(estimateTokens(dense32), Math.ceil(32 / 1.5), '32 characters of 32 kinds: dense');
  assert.equal(estimateTokens(dense32.slice(0, 31)), Math.ceil(31 / 3), 'one less: plain');
  const sixteenKinds = 'abcdefghijklmnop'.repeat(3);
  assert.equal(estimateTokens(sixteenKinds), 48 / 1.5, '16 kinds: dense');
  assert.equal(estimateTokens('abcdefghijklmno'.repeat(3)), 45 / 3, '15 kinds: plain');
  assert.equal(estimateTokens(`${dense32} ${dense32}`), 2 * Math.ceil(32 / 1.5) - 1, 'two runs');
  assert.equal(estimateTokens('\x7f'.repeat(6)), 2, 'DEL is ASCII');
  assert.equal(estimateTokens('\u0080'.repeat(6)), 6, 'the first character beyond ASCII');
});

test('a newline or tab written by JSON separates runs as it did in the text', () => {
  const lines = (separator: string) => message('user', `abcdefghijklmnopqrstuvwxyz${separator}`.repeat(20));
  assert.equal(expectedTokens([lines('\n')], ''), expectedTokens([lines(' ')], ''));
  assert.equal(expectedTokens([lines('\t')], ''), expectedTokens([lines(' ')], ''));
});

test('only thinking’s signature and media and redacted thinking’s data are left out: same-named fields elsewhere count', () => {
  const long = 'a signed statement of some length '.repeat(30);
  const thinking = (text: string, signature: string): TranscriptMessage => ({
    role: 'assistant',
    content: [{ type: 'thinking', thinking: text, signature }],
  });
  assert.equal(
    expectedTokens([thinking('short', base64)], ''),
    estimateTokens(JSON.stringify(thinking('short', ''))),
    'the signature is left out, to the letter',
  );
  assert.ok(expectedTokens([thinking(long, '')], '') > estimateTokens(long) / 2, 'thinking text counts');
  const call = (input: Record<string, string>): TranscriptMessage => ({
    role: 'assistant',
    content: [{ type: 'tool_use', id: 'toolu_1', name: 'sign', input }],
  });
  for (const key of ['signature', 'data']) {
    const tokens = expectedTokens([call({ [key]: long })], '');
    assert.ok(tokens > estimateTokens(long) / 2, `a tool input's ${key} counts: ${tokens}`);
  }
  const redacted: TranscriptMessage = {
    role: 'assistant',
    content: [{ type: 'redacted_thinking', data: base64 }],
  };
  assert.equal(
    expectedTokens([redacted], ''),
    estimateTokens(JSON.stringify({ role: 'assistant', content: [{ type: 'redacted_thinking', data: '' }] })),
  );
});

test('a PDF is a token for every four of its bytes above a page’s worth', () => {
  const data = Buffer.alloc(120_000, 3).toString('base64');
  const pdf: TranscriptMessage = {
    role: 'user',
    content: [
      {
        type: 'tool_result',
        tool_use_id: 'toolu_1',
        content: [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } }],
      },
    ],
  };
  const frame = expectedTokens(
    [{ ...pdf, content: [{ ...(pdf.content[0] as object), content: [] } as never] }],
    '',
  );
  const tokens = expectedTokens([pdf], '');
  assert.ok(
    tokens - frame >= 30_000 && tokens - frame <= 30_100,
    `120,000 bytes: ${tokens - frame} tokens beyond the frame`,
  );
});

test('characters are summed over the messages asked for, never past the end', () => {
  const two = [message('user', 'task'), message('assistant', 'answer')];
  const [first, second] = two.map((entry) => JSON.stringify(entry).length) as [number, number];
  assert.equal(charsOf(two), first + second);
  assert.equal(charsOf(two, 1), first);
  assert.equal(charsOf(two, 5), first + second);
  // A count covering more messages than there are never holds, even with the same characters.
  const measure = { tokens: 99_999, messages: 3, chars: first + second };
  assert.notEqual(expectedTokens(two, 'overhead', measure), 99_999);
});

test('the refusal’s figures without the word maximum, and figures that say no overflow', () => {
  assert.deepEqual(tooLongFigures('prompt is too long: 250 tokens > 200'), { tokens: 250, maximum: 200 });
  assert.equal(tooLongFigures('prompt is too long: 200 tokens > 200 maximum'), undefined);
  assert.equal(tooLongFigures('prompt is too long: 5 tokens > 0 maximum'), undefined);
});
