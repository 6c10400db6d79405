import { test } from 'node:test';
import assert from 'node:assert/strict';
import { validateRequest } from '../../src/scripted-model/validation';
import { ThinkingSigner } from '../../src/scripted-model/thinking-signature';
import type { MessagesRequestBody } from '../../src/scripted-model/request-body';
import { ONE_PIXEL_PNG, pdfWithPages, pngOfSize } from '../support/media-fixtures';

// The scripted server checks images and PDFs inside tool results, and tool_choice's fields, as
// strictly as the Messages API (media-rules.ts, validation.ts): each refusal beside its valid twin.

const signer = new ThinkingSigner();
const tools = [
  { name: 'read_file', description: 'read', input_schema: { type: 'object' } },
  { name: 'search', description: 'search', input_schema: { type: 'object' } },
];

function withResult(parts: unknown[], extra: Partial<MessagesRequestBody> = {}): MessagesRequestBody {
  return {
    model: 'claude-sonnet-4-6',
    max_tokens: 1024,
    tools,
    messages: [
      { role: 'user', content: 'look' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: parts }] },
    ],
    ...extra,
  };
}
const image = (bytes: Buffer, mediaType = 'image/png') => ({
  type: 'image',
  source: { type: 'base64', media_type: mediaType, data: bytes.toString('base64') },
});
const pdf = (bytes: Buffer) => ({
  type: 'document',
  source: { type: 'base64', media_type: 'application/pdf', data: bytes.toString('base64') },
});
const check = (body: MessagesRequestBody) => validateRequest(body, { signer });
const at = 'messages.2.content.0.content.1';

test('images and PDFs inside a tool result are taken as the API takes them', () => {
  assert.equal(check(withResult([{ type: 'text', text: 'a.png' }, image(ONE_PIXEL_PNG)])), undefined);
  assert.equal(check(withResult([{ type: 'text', text: 'a.pdf' }, pdf(pdfWithPages(2))])), undefined);
});

test('a media type that does not match the bytes, a bad type, bad base64: refused', () => {
  assert.equal(
    check(withResult([{ type: 'text', text: 'x' }, image(ONE_PIXEL_PNG, 'image/jpeg')])),
    `${at}.image.source.base64: The image was specified using the image/jpeg media type, but the image appears to be a image/png image`,
  );
  assert.match(
    check(withResult([{ type: 'text', text: 'x' }, image(ONE_PIXEL_PNG, 'image/bmp')])) ?? '',
    /media_type: Input should be/,
  );
  const broken = { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'not base64!' } };
  assert.match(check(withResult([{ type: 'text', text: 'x' }, broken])) ?? '', /not valid base64/);
  assert.match(
    check(withResult([{ type: 'text', text: 'x' }, { type: 'audio' }])) ?? '',
    /Input tag 'audio'/,
  );
});

test('over the API’s limits: 8000 px a side, 5 MB an image, 100 pages, not a PDF at all', () => {
  assert.match(
    check(withResult([{ type: 'text', text: 'x' }, image(pngOfSize(8001, 1))])) ?? '',
    /image dimensions exceed max allowed size: 8000 pixels/,
  );
  assert.equal(check(withResult([{ type: 'text', text: 'x' }, image(pngOfSize(8000, 8000))])), undefined);
  assert.match(
    check(withResult([{ type: 'text', text: 'x' }, image(pngOfSize(10, 10, 5 * 1024 * 1024 + 1))])) ?? '',
    /image exceeds 5 MB maximum: 5242881 bytes > 5242880 bytes/,
  );
  assert.match(
    check(withResult([{ type: 'text', text: 'x' }, pdf(pdfWithPages(101))])) ?? '',
    /A maximum of 100 PDF pages may be provided/,
  );
  assert.equal(check(withResult([{ type: 'text', text: 'x' }, pdf(pdfWithPages(100))])), undefined);
  assert.match(
    check(withResult([{ type: 'text', text: 'x' }, pdf(ONE_PIXEL_PNG)])) ?? '',
    /The PDF specified was not valid/,
  );
});

test('tool_choice: disable_parallel_tool_use inside auto, any and tool; none takes no fields', () => {
  const plain = (toolChoice: Record<string, unknown>) =>
    check(withResult([{ type: 'text', text: 'x' }], { tool_choice: toolChoice }));
  assert.equal(plain({ type: 'any', disable_parallel_tool_use: true }), undefined);
  assert.equal(plain({ type: 'auto', disable_parallel_tool_use: false }), undefined);
  assert.equal(plain({ type: 'tool', name: 'search', disable_parallel_tool_use: true }), undefined);
  assert.equal(
    plain({ type: 'none', disable_parallel_tool_use: true }),
    'tool_choice.none.disable_parallel_tool_use: Extra inputs are not permitted',
  );
  assert.equal(
    plain({ type: 'any', disable_parallel_tool_use: 'yes' }),
    'tool_choice.any.disable_parallel_tool_use: Input should be a valid boolean',
  );
  assert.match(plain({ type: 'tool', name: 'deploy' }) ?? '', /'deploy' is not one of the request's tools/);
  assert.match(plain({ type: 'required' }) ?? '', /Input tag 'required'/);
});
