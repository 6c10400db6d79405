import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { defaultPayloadConverter } from '@temporalio/common';
import { startCodecServer, type CodecServer } from '../../src/codec/codec-server';
import { EncryptionCodec } from '../../src/codec/encryption-codec';
import { parseEncryptionKeys } from '../../src/codec/encryption-keys';
import { payloadFromJson, payloadToJson, type JsonPayload } from '../../src/codec/payload-json';

const UI_ORIGIN = 'http://localhost:8233';
const codec = new EncryptionCodec(parseEncryptionKeys(`k1:${randomBytes(32).toString('base64')}`));
let server: CodecServer;
const logged: string[] = [];

before(async () => {
  server = await startCodecServer({ codec, uiOrigins: [UI_ORIGIN], log: (line) => logged.push(line) });
});

after(async () => {
  await server.close();
});

function post(path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-namespace': 'default', ...headers },
    body,
  });
}

async function payloadsOf(response: Response): Promise<JsonPayload[]> {
  assert.equal(response.status, 200, await response.clone().text());
  return ((await response.json()) as { payloads: JsonPayload[] }).payloads;
}

test('listens on 127.0.0.1 by default', () => {
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+$/);
});

test('POST /decode returns the payloads a client encrypted, as base64 proto JSON', async () => {
  const encrypted = await codec.encode([defaultPayloadConverter.toPayload({ goal: 'MARKER-decode' })]);
  const response = await post('/decode', JSON.stringify({ payloads: encrypted.map(payloadToJson) }), {
    origin: UI_ORIGIN,
  });
  assert.equal(response.headers.get('access-control-allow-origin'), UI_ORIGIN);
  const [decoded] = await payloadsOf(response);
  assert.ok(decoded);
  assert.equal(Buffer.from(decoded.metadata?.encoding ?? '', 'base64').toString(), 'json/plain');
  assert.deepEqual(defaultPayloadConverter.fromPayload(payloadFromJson(decoded)), { goal: 'MARKER-decode' });
});

test('POST /encode encrypts what the UI sends (e.g. a signal typed in the UI)', async () => {
  const plain = payloadToJson(defaultPayloadConverter.toPayload('MARKER-encode'));
  const [encoded] = await payloadsOf(await post('/encode', JSON.stringify({ payloads: [plain] })));
  assert.ok(encoded);
  assert.equal(Buffer.from(encoded.metadata?.encoding ?? '', 'base64').toString(), 'binary/encrypted');
  assert.ok(
    !Buffer.from(encoded.data ?? '', 'base64')
      .toString()
      .includes('MARKER-encode'),
  );
  const [back] = await codec.decode([payloadFromJson(encoded)]);
  assert.equal(defaultPayloadConverter.fromPayload(back ?? {}), 'MARKER-encode');
});

test('an OPTIONS preflight from the UI origin allows POST and the headers the UI sends', async () => {
  const response = await fetch(`${server.url}/decode`, {
    method: 'OPTIONS',
    headers: {
      origin: UI_ORIGIN,
      'access-control-request-method': 'POST',
      'access-control-request-headers': 'content-type,x-namespace,authorization',
    },
  });
  assert.equal(response.status, 204);
  assert.equal(response.headers.get('access-control-allow-origin'), UI_ORIGIN);
  assert.match(response.headers.get('access-control-allow-methods') ?? '', /POST/);
  const allowed = (response.headers.get('access-control-allow-headers') ?? '').split(/,\s*/);
  for (const header of ['content-type', 'x-namespace', 'authorization'])
    assert.ok(allowed.includes(header), header);
});

test('a page from another origin is refused and gets no CORS grant', async () => {
  const response = await post('/decode', JSON.stringify({ payloads: [] }), { origin: 'http://evil.example' });
  assert.equal(response.status, 403);
  assert.equal(response.headers.get('access-control-allow-origin'), null);
});

test('bad requests: not JSON or not {payloads} is 400, an unknown key id is 422 naming it', async () => {
  assert.equal((await post('/decode', '{not json')).status, 400);
  assert.equal((await post('/decode', JSON.stringify({ payload: [] }))).status, 400);
  assert.equal((await fetch(`${server.url}/other`, { method: 'POST', body: '{}' })).status, 404);
  assert.equal((await fetch(`${server.url}/decode`)).status, 405);
  const foreign = await new EncryptionCodec(
    parseEncryptionKeys(`elsewhere:${randomBytes(32).toString('base64')}`),
  ).encode([defaultPayloadConverter.toPayload('x')]);
  const response = await post('/decode', JSON.stringify({ payloads: foreign.map(payloadToJson) }));
  assert.equal(response.status, 422);
  assert.match(((await response.json()) as { error: string }).error, /key id "elsewhere"/);
  assert.ok(logged.some((line) => line.includes('"elsewhere"')));
});
