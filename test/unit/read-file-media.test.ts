import { test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { readFile } from '../../src/activities/tools/builtin/read-file';
import { READ_FILE_MAX_ATTACHMENT_BYTES } from '../../src/activities/tools/builtin/read-file-media';
import { apiRefusal, recogniseMedia } from '../../src/activities/tools/media-files';
import { capOutcome } from '../../src/activities/tools/outcome-cap';
import { ONE_PIXEL_PNG, pdfWithPages, pngOfSize } from '../support/media-fixtures';
import { makeWorkspace, toolContext } from './tools-test-helpers';
import { fitToBudget } from '../../src/workflows/common/context-budget';
import { toolResultBlocks } from '../../src/workflows/goal/tool-calls/turn';
import type { ToolCallRecord } from '../../src/workflows/goal/lifecycle/state';
import { userText, type TranscriptMessage } from '../../src/workflows/common/transcript';

// read_file shows images and PDFs to the model (issue 42 item 7): attached as the API takes them,
// or refused in a result the model reads when keel or the API would not take them.

function workspaceWith(files: Record<string, Buffer>): string {
  const workspace = makeWorkspace();
  for (const [name, bytes] of Object.entries(files)) writeFileSync(path.join(workspace, name), bytes);
  return workspace;
}

test('a PNG comes back attached as an image, whatever its name says', async () => {
  const workspace = workspaceWith({ 'shot.dat': ONE_PIXEL_PNG });
  const outcome = await readFile({ path: 'shot.dat' }, toolContext(workspace));
  assert.equal(outcome.ok, true);
  assert.equal(
    outcome.content,
    `shot.dat: PNG image, 1×1 px, ${ONE_PIXEL_PNG.length} bytes, attached below.`,
  );
  assert.deepEqual(outcome.images, [{ mediaType: 'image/png', data: ONE_PIXEL_PNG.toString('base64') }]);
  assert.equal(outcome.documents, undefined);
});

test('a PDF comes back attached as a document, its pages counted', async () => {
  const pdf = pdfWithPages(3);
  const workspace = workspaceWith({ 'report.pdf': pdf });
  const outcome = await readFile({ path: 'report.pdf', offset: 5 }, toolContext(workspace));
  assert.equal(outcome.ok, true);
  assert.match(
    outcome.content,
    /^report\.pdf: PDF, 3 pages, \d+ bytes, attached below \(offset and limit apply/,
  );
  assert.deepEqual(outcome.documents, [{ mediaType: 'application/pdf', data: pdf.toString('base64') }]);
});

test('over keel’s attachment size: a failed result that says so, nothing attached', async () => {
  const workspace = workspaceWith({ 'big.png': pngOfSize(100, 100, READ_FILE_MAX_ATTACHMENT_BYTES + 1) });
  const outcome = await readFile({ path: 'big.png' }, toolContext(workspace));
  assert.equal(outcome.ok, false);
  assert.match(
    outcome.content,
    /big\.png is a PNG image of 200001 bytes: too large to attach \(read_file attaches images and PDFs up to 200000 bytes/,
  );
  assert.equal(outcome.images, undefined);
  assert.ok(outcome.candidates.length >= 2);
  const exactly = workspaceWith({ 'edge.png': pngOfSize(100, 100, READ_FILE_MAX_ATTACHMENT_BYTES) });
  assert.equal(
    (await readFile({ path: 'edge.png' }, toolContext(exactly))).ok,
    true,
    'the limit itself is allowed',
  );
});

test('what the API refuses is refused here, in the API’s words: 8000 px, 100 pages, encryption', async () => {
  const workspace = workspaceWith({
    'wide.png': pngOfSize(8001, 10),
    'long.pdf': pdfWithPages(101),
    'edge.png': pngOfSize(8000, 8000),
    'hundred.pdf': pdfWithPages(100),
  });
  const wide = await readFile({ path: 'wide.png' }, toolContext(workspace));
  assert.equal(wide.ok, false);
  assert.match(wide.content, /does not take: image dimensions exceed max allowed size: 8000 pixels/);
  const long = await readFile({ path: 'long.pdf' }, toolContext(workspace));
  assert.equal(long.ok, false);
  assert.match(long.content, /A maximum of 100 PDF pages may be provided\./);
  assert.match(long.candidates[0] ?? '', /pdftotext/);
  assert.equal((await readFile({ path: 'edge.png' }, toolContext(workspace))).ok, true);
  assert.equal((await readFile({ path: 'hundred.pdf' }, toolContext(workspace))).ok, true);
  const encrypted = recogniseMedia(Buffer.from('%PDF-1.7\ntrailer << /Encrypt 5 0 R >>'));
  assert.ok(encrypted);
  assert.match(apiRefusal(encrypted, 100) ?? '', /encrypted/);
  assert.equal(
    apiRefusal({ kind: 'image', mediaType: 'image/png' }, 5 * 1024 * 1024 + 1),
    'image exceeds 5 MB maximum: 5242881 bytes > 5242880 bytes',
  );
});

test('the formats are told by their bytes, with their dimensions', () => {
  assert.deepEqual(recogniseMedia(pngOfSize(640, 480)), {
    kind: 'image',
    mediaType: 'image/png',
    width: 640,
    height: 480,
  });
  const gif = Buffer.from('GIF89a\x20\x03\x58\x02', 'latin1');
  assert.deepEqual(recogniseMedia(gif), { kind: 'image', mediaType: 'image/gif', width: 800, height: 600 });
  const jpeg = Buffer.from([
    0xff, 0xd8, 0xff, 0xe0, 0, 4, 0, 0, 0xff, 0xc0, 0, 11, 8, 0x01, 0xe0, 0x02, 0x80, 3, 0, 0,
  ]);
  assert.deepEqual(recogniseMedia(jpeg), { kind: 'image', mediaType: 'image/jpeg', width: 640, height: 480 });
  const webp = Buffer.alloc(30);
  webp.write('RIFF', 0, 'latin1');
  webp.write('WEBPVP8X', 8, 'latin1');
  webp.writeUIntLE(1023, 24, 3);
  webp.writeUIntLE(767, 27, 3);
  assert.deepEqual(recogniseMedia(webp), {
    kind: 'image',
    mediaType: 'image/webp',
    width: 1024,
    height: 768,
  });
  assert.equal(recogniseMedia(Buffer.from('hello')), undefined);
});

test('the outcome cap leaves a PDF within its share and drops one beyond it, saying so', () => {
  const small = capOutcome({
    ok: true,
    content: 'x',
    candidates: [],
    facts: {},
    documents: [{ mediaType: 'application/pdf', data: 'QQ==' }],
  });
  assert.equal(small.documents?.length, 1);
  const huge = capOutcome({
    ok: true,
    content: 'x',
    candidates: [],
    facts: {},
    documents: [{ mediaType: 'application/pdf', data: 'A'.repeat(1_000_001) }],
  });
  assert.deepEqual(huge.documents, []);
  assert.match(huge.content, /1 PDF\(s\) left out by keel/);
});

test('the transcript carries them as image and document blocks, counted at their base64 length', () => {
  const data = 'A'.repeat(50_000);
  const call = {
    callId: 'call-1',
    toolUseId: 'toolu_1',
    result: {
      content: 'report.pdf: PDF, 1 page, attached below.',
      isError: false,
      images: [{ mediaType: 'image/png' as const, data: 'iVBO' }],
      documents: [{ mediaType: 'application/pdf' as const, data }],
    },
  } as unknown as ToolCallRecord;
  const [block] = toolResultBlocks([call]);
  assert.deepEqual(block?.content, [
    { type: 'text', text: 'report.pdf: PDF, 1 page, attached below.' },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } },
    { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data } },
  ]);
  const transcript: TranscriptMessage[] = [
    userText('task'),
    { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: {} }] },
    { role: 'user', content: [block] },
  ];
  const fitted = fitToBudget(transcript, { maxChars: 40_000, keepLatestMessages: 1 });
  assert.ok(fitted.charsBefore > 50_000, 'the document counts by its data');
  assert.ok(fitted.charsAfter <= 40_000 * 0.75, 'and is elided when the budget needs the room');
});
