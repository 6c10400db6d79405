import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import {
  describeModelRequestStore,
  modelRequestStoreFromEnv,
} from '../../src/activities/model/request-store/create-model-request-store';
import { defaultModelRequestDirectory } from '../../src/activities/model/request-store/file-model-request-store';

test('KEEL_MODEL_REQUESTS: unset a folder in ~/.keel, a folder, a PostgreSQL URL without its password, or off', () => {
  assert.equal(describeModelRequestStore({}), `files in ${defaultModelRequestDirectory()}`);
  assert.equal(
    describeModelRequestStore({ KEEL_MODEL_REQUESTS: 'reqs' }),
    `files in ${path.resolve('reqs')}`,
  );
  assert.equal(
    describeModelRequestStore({ KEEL_MODEL_REQUESTS: 'postgres://keel:secret@db:5432/keel' }),
    'PostgreSQL postgres://keel:***@db:5432/keel (table keel_model_requests)',
  );
  assert.equal(modelRequestStoreFromEnv({ KEEL_MODEL_REQUESTS: 'off' }), undefined);
  assert.match(
    describeModelRequestStore({ KEEL_MODEL_REQUESTS: 'off' }),
    /every model request is sent whole/,
  );
});

test('a worker that encrypts payloads keeps no plain-text store unless one is named', async () => {
  const encrypting = { KEEL_ENCRYPTION_KEYS: 'k1:AAAA' };
  assert.equal(modelRequestStoreFromEnv(encrypting), undefined);
  assert.match(
    describeModelRequestStore(encrypting),
    /encrypted .* sent whole unless KEEL_MODEL_REQUESTS names one/,
  );
  const named = modelRequestStoreFromEnv({
    ...encrypting,
    KEEL_MODEL_REQUESTS: path.join('/tmp', 'never-written'),
  });
  assert.ok(named, 'a store the user names is kept');
  await named.close();
});
