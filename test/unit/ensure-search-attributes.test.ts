import { test } from 'node:test';
import assert from 'node:assert/strict';
import { temporal } from '@temporalio/proto';
import {
  KEEL_SEARCH_ATTRIBUTES,
  SearchAttributesError,
  ensureKeelSearchAttributes,
  type OperatorConnection,
} from '../../src/dev-server/search-attributes';

const { IndexedValueType } = temporal.api.enums.v1;
type Types = Record<string, temporal.api.enums.v1.IndexedValueType>;

/** An operator service holding `existing`; `add` decides what registering does. */
function fakeServer(existing: Types, add: (attributes: Types) => void = (a) => Object.assign(existing, a)) {
  const added: Types[] = [];
  const operatorService = {
    listSearchAttributes: () => Promise.resolve({ customAttributes: { ...existing } }),
    addSearchAttributes: (request: { searchAttributes?: Types | null }) => {
      added.push(request.searchAttributes ?? {});
      add(request.searchAttributes ?? {});
      return Promise.resolve({});
    },
  };
  return { connection: { operatorService } as unknown as OperatorConnection, added };
}

test('missing attributes are registered with their types; present ones are left alone', async () => {
  const server = fakeServer({ KeelStatus: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD });
  const check = await ensureKeelSearchAttributes({ connection: server.connection, namespace: 'default' });
  const missing = Object.keys(KEEL_SEARCH_ATTRIBUTES).filter((name) => name !== 'KeelStatus');
  assert.deepEqual(check, { outcome: 'registered', names: missing });
  assert.deepEqual(server.added, [
    {
      KeelPhase: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
      KeelToolCalls: IndexedValueType.INDEXED_VALUE_TYPE_INT,
      KeelPlanAttempt: IndexedValueType.INDEXED_VALUE_TYPE_INT,
      KeelPendingApprovals: IndexedValueType.INDEXED_VALUE_TYPE_INT,
      KeelPriority: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
      KeelHost: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
      KeelCostUsd: IndexedValueType.INDEXED_VALUE_TYPE_DOUBLE,
      KeelForkOf: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD,
    },
  ]);
  const again = await ensureKeelSearchAttributes({ connection: server.connection, namespace: 'default' });
  assert.deepEqual(again, { outcome: 'present' });
  assert.equal(server.added.length, 1);
});

test('a refused registration is one line naming the attributes and the command that fixes it', async () => {
  const server = fakeServer({}, () => {
    throw new Error('7 PERMISSION_DENIED: Request unauthorized.\nmore detail');
  });
  await assert.rejects(
    ensureKeelSearchAttributes({ connection: server.connection, namespace: 'prod' }),
    (error: Error) =>
      error instanceof SearchAttributesError &&
      !error.message.includes('\n') &&
      /^search attributes KeelStatus, KeelPhase, .* are missing in namespace prod and keel could not register them \(7 PERMISSION_DENIED: Request unauthorized\.\)/.test(
        error.message,
      ) &&
      /temporal operator search-attribute create --namespace prod --name KeelStatus --type Keyword$/.test(
        error.message,
      ),
  );
});

test('a worker that loses the race to register them (AlreadyExists) goes on', async () => {
  const existing: Types = {};
  const server = fakeServer(existing, (attributes) => {
    Object.assign(existing, attributes); // the other worker's registration landed first
    throw new Error('6 ALREADY_EXISTS: Search attribute KeelStatus already exists.');
  });
  assert.deepEqual(
    await ensureKeelSearchAttributes({ connection: server.connection, namespace: 'default' }),
    {
      outcome: 'present',
    },
  );
});

test('an attribute of another type is an error; a server that will not list them is reported, not fatal', async () => {
  const wrong = fakeServer({ KeelToolCalls: IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD });
  await assert.rejects(
    ensureKeelSearchAttributes({ connection: wrong.connection, namespace: 'default' }),
    /KeelToolCalls \(keel needs Int\) exist in namespace default with another type/,
  );
  const silent = {
    operatorService: { listSearchAttributes: () => Promise.reject(new Error('unimplemented')) },
  } as unknown as OperatorConnection;
  assert.deepEqual(await ensureKeelSearchAttributes({ connection: silent, namespace: 'default' }), {
    outcome: 'unknown',
    reason: 'unimplemented',
  });
});

test('registration that the server never lists times out with one line', async () => {
  const server = fakeServer({}, () => undefined);
  await assert.rejects(
    ensureKeelSearchAttributes({ connection: server.connection, namespace: 'default', timeoutMs: 300 }),
    /did not list them within 300 ms/,
  );
});
