import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import {
  LedgerSinkConfigError,
  LedgerSinkFailureType,
  createLedgerSinkActivities,
  createStdoutSink,
  createWebhookSink,
  ledgerSinksFromEnv,
  type DeliveryContext,
  type LedgerBatch,
  type LedgerSink,
} from '../../src/activities/ledger-sinks';
import { LedgerEventKind, type LedgerEvent } from '../../src/workflows/common/ledger';

const events: LedgerEvent[] = [
  {
    sequence: 7,
    at: '2025-03-01T12:00:00.000Z',
    kind: LedgerEventKind.PlanCreated,
    summary: 'plan with 3 steps',
    data: { steps: 3 },
  },
  {
    sequence: 8,
    at: '2025-03-01T12:00:01.000Z',
    kind: LedgerEventKind.TaskReflected,
    summary: 'task reflected (run 2)',
    data: { isFirstReflection: false },
  },
];

interface ReceivedRequest {
  method: string | undefined;
  path: string | undefined;
  contentType: string | undefined;
  body: string;
}

interface LoopbackServer {
  url: string;
  requests: ReceivedRequest[];
  close(): Promise<void>;
}

/** A real HTTP server on 127.0.0.1 with an ephemeral port; `answer` decides the response. */
async function startServer(
  answer: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<LoopbackServer> {
  const requests: ReceivedRequest[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests.push({
        method: request.method,
        path: request.url,
        contentType: request.headers['content-type'],
        body: Buffer.concat(chunks).toString('utf8'),
      });
      answer(request, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections(); // including a request the server never answered
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}

/** A port nothing listens on: bound once, then released. */
async function closedPort(): Promise<number> {
  const server = await startServer(() => {});
  const port = Number(new URL(server.url).port);
  await server.close();
  return port;
}

test('stdout sink: one JSON line per event with the workflow id', async () => {
  const lines: string[] = [];
  const sink = createStdoutSink({ write: (line) => lines.push(line) });
  assert.equal(sink.name, 'stdout');
  await sink.publish({ workflowId: 'goal-1', events });
  assert.equal(lines.length, 2);
  lines.forEach((line, index) => {
    assert.doesNotMatch(line, /\n/);
    assert.deepEqual(JSON.parse(line), { workflowId: 'goal-1', ...events[index] });
  });
  await sink.publish({ workflowId: 'goal-1', events: [] });
  assert.equal(lines.length, 2, 'an empty batch writes nothing');
});

test('webhook sink: POSTs {workflowId, events} as JSON to the URL', async () => {
  const server = await startServer((_request, response) => response.writeHead(204).end());
  try {
    const sink = createWebhookSink({ url: `${server.url}/hooks/ledger?token=s3cret` });
    await sink.publish({ workflowId: 'goal-1', events });
    assert.equal(server.requests.length, 1);
    const [request] = server.requests;
    assert.equal(request?.method, 'POST');
    assert.equal(request?.path, '/hooks/ledger?token=s3cret');
    assert.equal(request?.contentType, 'application/json');
    assert.deepEqual(JSON.parse(request?.body ?? ''), { workflowId: 'goal-1', events });
    assert.match(sink.name, /^webhook http:\/\/127\.0\.0\.1:\d+ \[[0-9a-f]{8}\]$/);
    assert.doesNotMatch(sink.name, /s3cret|hooks/, 'the name never shows path or query');
  } finally {
    await server.close();
  }
});

test('webhook sink: a non-2xx answer rejects with the status, without the secret', async () => {
  const server = await startServer((_request, response) => response.writeHead(503).end('busy'));
  try {
    const sink = createWebhookSink({ url: `${server.url}/hook/s3cret` });
    await assert.rejects(sink.publish({ workflowId: 'goal-1', events }), (error: Error) => {
      assert.match(error.message, /answered HTTP 503 Service Unavailable$/);
      assert.doesNotMatch(error.message, /s3cret/);
      return true;
    });
    assert.equal(server.requests.length, 1);
  } finally {
    await server.close();
  }
});

test('webhook sink: a server that never answers times out', async () => {
  const server = await startServer(() => {}); // reads the request, never responds
  try {
    const sink = createWebhookSink({ url: `${server.url}/slow`, timeoutMs: 150 });
    const started = performance.now();
    await assert.rejects(sink.publish({ workflowId: 'goal-1', events }), /no answer within 150 ms/);
    const elapsed = performance.now() - started;
    assert.ok(elapsed >= 100 && elapsed < 3_000, `gave up after ${Math.round(elapsed)} ms`);
    assert.equal(server.requests.length, 1, 'the request did arrive');
  } finally {
    await server.close();
  }
});

test('webhook sink: a refused connection rejects', async () => {
  const port = await closedPort();
  const sink = createWebhookSink({ url: `http://127.0.0.1:${port}/hook` });
  await assert.rejects(sink.publish({ workflowId: 'goal-1', events }), /ECONNREFUSED/);
});

test('webhook sink: a bad URL or timeout is a configuration error', () => {
  assert.throws(() => createWebhookSink({ url: 'not a url' }), LedgerSinkConfigError);
  assert.throws(() => createWebhookSink({ url: 'ftp://example.com/x' }), /must be http:\/\/ or https:\/\//);
  assert.throws(() => createWebhookSink({ url: 'http://127.0.0.1/x', timeoutMs: 0 }), /timeoutMs/);
});

test('KEEL_LEDGER_SINKS: unset or blank means no sinks', () => {
  assert.deepEqual(ledgerSinksFromEnv({}), []);
  assert.deepEqual(ledgerSinksFromEnv({ KEEL_LEDGER_SINKS: '  ' }), []);
});

test('KEEL_LEDGER_SINKS: stdout and webhooks, comma-separated', async () => {
  const server = await startServer((_request, response) => response.writeHead(200).end('ok'));
  try {
    const lines: string[] = [];
    const sinks = ledgerSinksFromEnv(
      { KEEL_LEDGER_SINKS: ` stdout , webhook=${server.url}/a, webhook=${server.url}/b ,` },
      { write: (line) => lines.push(line) },
    );
    assert.equal(sinks.length, 3);
    assert.equal(sinks[0]?.name, 'stdout');
    assert.notEqual(sinks[1]?.name, sinks[2]?.name, 'two webhooks on one host are told apart');
    for (const sink of sinks) await sink.publish({ workflowId: 'goal-2', events });
    assert.equal(lines.length, events.length);
    assert.deepEqual(
      server.requests.map((request) => request.path),
      ['/a', '/b'],
    );
  } finally {
    await server.close();
  }
});

test('KEEL_LEDGER_SINKS: a bad entry is one clear line that never repeats a URL', () => {
  const cases: Array<[string, RegExp]> = [
    ['stdout,kafka', /entry 2: unknown sink "kafka"; use stdout or webhook=<http\(s\) URL>/],
    ['webhok=https://hooks.example.com/s3cret', /entry 1: unknown sink "webhok"/],
    ['webhook=', /entry 1: webhook URL is not a valid URL/],
    ['webhook=ftp://example.com/s3cret', /entry 1: webhook URL must be http:\/\/ or https:\/\//],
    ['stdout,stdout', /entry 2 repeats an earlier sink/],
  ];
  for (const [value, pattern] of cases) {
    assert.throws(
      () => ledgerSinksFromEnv({ KEEL_LEDGER_SINKS: value }),
      (error: Error) => {
        assert.ok(error instanceof LedgerSinkConfigError, value);
        assert.match(error.message, /^KEEL_LEDGER_SINKS entry \d/);
        assert.match(error.message, pattern);
        assert.doesNotMatch(error.message, /\n|s3cret/);
        return true;
      },
    );
  }
});

/** A sink that records what it was given and fails while `failing` is set. */
function recordingSink(name: string, options: { failing?: boolean } = {}) {
  const received: LedgerBatch[] = [];
  const sink: LedgerSink & { received: LedgerBatch[]; failing: boolean } = {
    name,
    received,
    failing: options.failing ?? false,
    publish(batch) {
      received.push(batch);
      return sink.failing ? Promise.reject(new Error('listener down')) : Promise.resolve();
    },
  };
  return sink;
}

/** Stands in for the activity context: heartbeat details survive to the next attempt. */
interface FakeContext extends DeliveryContext {
  heartbeats: unknown[];
  info: { heartbeatDetails: unknown };
}

function fakeContext(): FakeContext {
  const context = {
    heartbeats: [] as unknown[],
    info: { heartbeatDetails: undefined as unknown },
    heartbeat(details?: unknown) {
      context.heartbeats.push(details);
    },
  };
  return context;
}

test('publishLedgerEvents: every sink gets the batch', async () => {
  const first = recordingSink('first');
  const second = recordingSink('second');
  const { publishLedgerEvents } = createLedgerSinkActivities({
    sinks: [first, second],
    context: () => undefined,
  });
  assert.deepEqual(await publishLedgerEvents({ workflowId: 'goal-3', events }), { delivered: 2 });
  assert.deepEqual(first.received, [{ workflowId: 'goal-3', events }]);
  assert.deepEqual(second.received, [{ workflowId: 'goal-3', events }]);
});

test('publishLedgerEvents: with no sinks or no events there is nothing to do', async () => {
  const sink = recordingSink('only');
  assert.deepEqual(
    await createLedgerSinkActivities({ sinks: [] }).publishLedgerEvents({ workflowId: 'goal-3', events }),
    { delivered: 0 },
  );
  assert.deepEqual(
    await createLedgerSinkActivities({ sinks: [sink] }).publishLedgerEvents({
      workflowId: 'goal-3',
      events: [],
    }),
    { delivered: 0 },
  );
  assert.equal(sink.received.length, 0);
});

test('publishLedgerEvents: a failing sink does not stop the others, and the failure names it', async () => {
  const before = recordingSink('before');
  const broken = recordingSink('broken', { failing: true });
  const throwsAtOnce: LedgerSink = {
    name: 'throws-at-once',
    publish: () => {
      throw new Error('not even a promise\nsecond line');
    },
  };
  const after = recordingSink('after');
  const { publishLedgerEvents } = createLedgerSinkActivities({
    sinks: [before, broken, throwsAtOnce, after],
    context: () => undefined,
  });
  await assert.rejects(publishLedgerEvents({ workflowId: 'goal-4', events }), (error: unknown) => {
    assert.ok(error instanceof ApplicationFailure);
    assert.equal(error.type, LedgerSinkFailureType.DeliveryFailed);
    assert.equal(error.nonRetryable, false, 'Temporal retries it');
    assert.equal(
      error.message,
      'ledger sinks failed (2 of 4): broken: listener down; throws-at-once: not even a promise',
    );
    return true;
  });
  assert.equal(before.received.length, 1);
  assert.equal(after.received.length, 1, 'sinks after a failing one are still attempted');
});

test('publishLedgerEvents: a retry only repeats the sinks that failed', async () => {
  const healthy = recordingSink('healthy');
  const flaky = recordingSink('flaky', { failing: true });
  const context = fakeContext();
  const { publishLedgerEvents } = createLedgerSinkActivities({
    sinks: [healthy, flaky],
    context: () => context,
  });

  await assert.rejects(publishLedgerEvents({ workflowId: 'goal-5', events }), /flaky: listener down/);
  assert.deepEqual(context.heartbeats.at(-1), { deliveredSinks: ['healthy'] });

  // Temporal hands the last heartbeat details to the next attempt.
  context.info.heartbeatDetails = context.heartbeats.at(-1);
  flaky.failing = false;
  assert.deepEqual(await publishLedgerEvents({ workflowId: 'goal-5', events }), { delivered: 2 });
  assert.equal(healthy.received.length, 1, 'the healthy sink is not sent the batch twice');
  assert.equal(flaky.received.length, 2);
  assert.deepEqual(context.heartbeats.at(-1), { deliveredSinks: ['healthy', 'flaky'] });
});

test('publishLedgerEvents: unreadable heartbeat details mean every sink is tried', async () => {
  const sink = recordingSink('only');
  const context = fakeContext();
  context.info.heartbeatDetails = 42;
  const { publishLedgerEvents } = createLedgerSinkActivities({ sinks: [sink], context: () => context });
  assert.deepEqual(await publishLedgerEvents({ workflowId: 'goal-6', events }), { delivered: 1 });
  assert.equal(sink.received.length, 1);
});

test('sink names must be unique', () => {
  assert.throws(
    () => createLedgerSinkActivities({ sinks: [recordingSink('twin'), recordingSink('twin')] }),
    /two ledger sinks are named "twin"/,
  );
});

test('publishLedgerEvents over a real webhook: delivered, then a 500 fails the activity', async () => {
  let status = 200;
  const server = await startServer((_request, response) => response.writeHead(status).end());
  try {
    const [sink] = ledgerSinksFromEnv({ KEEL_LEDGER_SINKS: `webhook=${server.url}/ledger` });
    assert.ok(sink);
    const { publishLedgerEvents } = createLedgerSinkActivities({ sinks: [sink], context: () => undefined });
    assert.deepEqual(await publishLedgerEvents({ workflowId: 'goal-7', events }), { delivered: 1 });
    assert.deepEqual(JSON.parse(server.requests[0]?.body ?? ''), { workflowId: 'goal-7', events });
    status = 500;
    await assert.rejects(publishLedgerEvents({ workflowId: 'goal-7', events }), /answered HTTP 500/);
    assert.equal(server.requests.length, 2);
  } finally {
    await server.close();
  }
});
