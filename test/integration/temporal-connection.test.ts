import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import type { Interceptor } from '@grpc/grpc-js';
import { Connection } from '@temporalio/client';
import { clientInterceptors } from '../../src/client/temporal-connection';

// A client that closes its connection while the SDK still retries a call (a server shutting down,
// a CLI command ending) must not end its process: the call fails, CANCELLED, and that is all.

/** A port nothing listens on: every attempt is refused at once, UNAVAILABLE, and retried. */
async function refusedAddress(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `127.0.0.1:${port}`;
}

test('a call still being retried when its connection closes fails CANCELLED; nothing is thrown from a timer', async () => {
  const uncaught: unknown[] = [];
  const onUncaught = (error: unknown) => uncaught.push(error);
  process.on('uncaughtException', onUncaught);
  try {
    let attempts = 0;
    let attempted: () => void = () => {};
    const secondAttempt = new Promise<void>((resolve) => (attempted = resolve));
    // Between the SDK's retry and the guard: counts the attempts the retry makes.
    const counting: Interceptor = (options, nextCall) => {
      attempts += 1;
      if (attempts === 2) setImmediate(attempted);
      return nextCall(options) as never;
    };
    const [retry, guard] = clientInterceptors();
    const connection = Connection.lazy({
      address: await refusedAddress(),
      interceptors: [retry as Interceptor, counting, guard as Interceptor],
    });
    const call = connection.workflowService.getSystemInfo({});
    call.catch(() => undefined);
    await secondAttempt; // the second attempt was refused too: a third waits on the SDK's timer
    await connection.close();
    await assert.rejects(call, (error: Error & { code?: number }) => {
      assert.equal(error.code, 1, `CANCELLED, not ${String(error.code)}: ${error.message}`);
      assert.match(error.message, /the connection was closed before the call could be retried/);
      return true;
    });
    assert.equal(attempts, 3, 'the retry after the close was the last: answered CANCELLED, not retried');
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.deepEqual(uncaught, []);
  } finally {
    process.off('uncaughtException', onUncaught);
  }
});

test('every keel client connection carries the guard after the SDK retry', () => {
  const interceptors = clientInterceptors();
  assert.equal(interceptors.length, 2);
  assert.equal(interceptors[1]?.name, 'closedChannelGuard');
});
