import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { temporal } from '@temporalio/proto';
import { goalHandle, startGoal } from '../../src/client/goal-client';
import { decideApprovalUpdate, goalStatusQuery, ledgerQuery } from '../../src/workflows/goal/messages';
import { startCodecServer } from '../../src/codec/codec-server';
import { EncryptionCodec } from '../../src/codec/encryption-codec';
import { parseEncryptionKeys } from '../../src/codec/encryption-keys';
import { findTemporalBinary } from '../../src/dev-server/temporal-binary';
import {
  createHarness,
  eventually,
  stopOwnServer,
  temporalAddress,
  tempDirectory,
  type Harness,
} from '../support/temporal';
import { connectTemporal } from '../../src/client/temporal-connection';

// Before the harness exists: its client and its worker both read the keys from the environment.
const KEYS = `test-old:${randomBytes(32).toString('base64')},test-new:${randomBytes(32).toString('base64')}`;
process.env.KEEL_ENCRYPTION_KEYS = KEYS;

const unique = randomBytes(4).toString('hex');
const GOAL_MARKER = `GOALMARKER${unique}`;
const TOOL_MARKER = `TOOLMARKER${unique}`;
const FINAL_MARKER = `FINALMARKER${unique}`;
const FAILURE_MARKER = `FAILUREMARKER${unique}`;
const MARKERS = [GOAL_MARKER, TOOL_MARKER, FINAL_MARKER];

let harness: Harness;
let rawClient: Client; // no codec: what anyone with access to the server (or its database) sees
let address: string;
let workflowId: string;
let workspace: string | undefined;

before(async () => {
  address = await temporalAddress();
  harness = await createHarness({
    scenarios: [
      {
        name: 'encrypted',
        match: 'GOAL-ENCRYPTED',
        turns: [
          { toolCalls: [{ name: 'read_file', input: { path: 'secret.txt' } }] },
          { text: `The file is read: ${FINAL_MARKER}` },
        ],
      },
      {
        name: 'encrypted-decisions',
        match: 'DECISIONS-IN-CIPHER',
        turns: [
          { toolCalls: [{ name: 'run_command', input: { command: 'echo first' } }] },
          { toolCalls: [{ name: 'run_command', input: { command: 'echo second' } }] },
          { text: 'decided' },
        ],
      },
      {
        name: 'encrypted-failure',
        match: 'GOAL-FAILING-ENCRYPTED',
        // The endpoint refuses for good, quoting the request: a failure message worth hiding.
        turns: [
          { text: 'never sent', failures: [{ status: 400, message: `bad request: ${FAILURE_MARKER}` }] },
        ],
      },
    ],
  });
  rawClient = new Client({ connection: await connectTemporal({ address }) });
  workspace = tempDirectory('keel-ws-');
  writeFileSync(path.join(workspace, 'secret.txt'), `the tool output is ${TOOL_MARKER}\n`);
  workflowId = `encrypted-${Date.now()}`;
  const handle = await startGoal(harness.client, {
    input: { goal: `GOAL-ENCRYPTED: read secret.txt for ${GOAL_MARKER}`, workspace },
    taskQueue: harness.taskQueue,
    workflowId,
  });
  const result = await harness.withWorker(() => handle.result());
  assert.equal(result.status, 'completed');
});

after(async () => {
  if (workspace) rmSync(workspace, { recursive: true, force: true });
  await rawClient?.connection.close();
  await harness?.close();
  await stopOwnServer();
});

/** The text itself plus every base64-looking string in it decoded, so a marker cannot hide in base64. */
function searchable(json: string): string {
  const decoded: string[] = [];
  JSON.parse(json, (_key, value: unknown) => {
    if (typeof value === 'string' && /^[A-Za-z0-9+/]{8,}={0,2}$/.test(value))
      decoded.push(Buffer.from(value, 'base64').toString('utf8'));
    return value;
  });
  return `${json}\n${decoded.join('\n')}`;
}

function assertNoMarkers(text: string, what: string): void {
  for (const marker of MARKERS) assert.ok(!text.includes(marker), `${marker} is readable in ${what}`);
}

test('the model really saw the tool output (so its absence from history below means something)', () => {
  const second = harness.scripted.requests.find((request) => request.turnIndex === 1);
  assert.match(JSON.stringify(second?.body), new RegExp(TOOL_MARKER));
});

test('`temporal workflow show --output json` shows no marker, in plain text or base64', async () => {
  const { stdout } = await promisify(execFile)(
    findTemporalBinary(),
    ['workflow', 'show', '--workflow-id', workflowId, '--output', 'json', '--address', address],
    { maxBuffer: 64 * 1024 * 1024 },
  );
  assertNoMarkers(searchable(stdout), 'the temporal CLI output');
  assert.match(stdout, /binary\/encrypted|YmluYXJ5L2VuY3J5cHRlZA==/, 'the CLI saw encrypted payloads');
});

test("the same CLI with --codec-endpoint pointed at keel's codec server shows the goal and tool output", async () => {
  const codecServer = await startCodecServer({ codec: new EncryptionCodec(parseEncryptionKeys(KEYS)) });
  try {
    const { stdout } = await promisify(execFile)(
      findTemporalBinary(),
      ['workflow', 'show', '--workflow-id', workflowId, '--output', 'json', '--address', address].concat([
        '--codec-endpoint',
        codecServer.url,
      ]),
      { maxBuffer: 64 * 1024 * 1024 },
    );
    const text = searchable(stdout);
    for (const marker of MARKERS) assert.ok(text.includes(marker), `${marker} decoded by the codec server`);
  } finally {
    await codecServer.close();
  }
});

test('the raw history holds only ciphertext, and the codec turns it back into the goal', async () => {
  const history = await rawClient.workflow.getHandle(workflowId).fetchHistory();
  const json = JSON.stringify(
    temporal.api.history.v1.History.toObject(history as temporal.api.history.v1.History, { bytes: String }),
  );
  assertNoMarkers(searchable(json), 'the raw history');

  const first = history.events?.[0];
  const started = first?.workflowExecutionStartedEventAttributes;
  const input = started?.input?.payloads?.[0] as Payload;
  const summary = first?.userMetadata?.summary as Payload; // the static summary: a codec payload too
  for (const payload of [input, summary]) {
    assert.equal(Buffer.from(payload.metadata?.encoding ?? []).toString(), 'binary/encrypted');
    assert.equal(Buffer.from(payload.metadata?.['encryption-key-id'] ?? []).toString(), 'test-new');
  }
  // Positive control: the same bytes, decrypted, are the goal and its summary.
  const codec = new EncryptionCodec(parseEncryptionKeys(KEYS));
  const [goalInput, summaryText] = (await codec.decode([input, summary])).map((payload) =>
    defaultPayloadConverter.fromPayload(payload),
  );
  assert.match((goalInput as { goal: string }).goal, new RegExp(GOAL_MARKER));
  assert.match(summaryText as string, new RegExp(GOAL_MARKER));
});

test("with the codec a client reads the goal's result; without it, it cannot", async () => {
  const result = await goalHandle(harness.client, workflowId).result();
  assert.equal(result.status, 'completed');
  assert.equal(result.finalText, `The file is read: ${FINAL_MARKER}`);
  const description = await harness.client.workflow.getHandle(workflowId).describe();
  assert.match((await description.staticSummary()) ?? '', new RegExp(GOAL_MARKER));
  await assert.rejects(rawClient.workflow.getHandle(workflowId).result(), /binary\/encrypted/);
});

test('failure messages are encrypted too: the raw history hides them, a client with the codec reads them', async () => {
  const failingId = `encrypted-failure-${Date.now()}`;
  const handle = await startGoal(harness.client, {
    input: { goal: 'GOAL-FAILING-ENCRYPTED: fail', workspace: tempDirectory('keel-ws-') },
    taskQueue: harness.taskQueue,
    workflowId: failingId,
  });
  const failure = await harness.withWorker(() =>
    handle.result().then(
      () => undefined,
      (error: unknown) => error,
    ),
  );
  assert.ok(failure instanceof Error, 'the goal failed');
  // Decoded by the client: the message chain still names the endpoint's words.
  const chain: string[] = [];
  for (let error: unknown = failure; error instanceof Error; error = error.cause) chain.push(error.message);
  assert.match(chain.join(' | '), new RegExp(FAILURE_MARKER));

  const history = await rawClient.workflow.getHandle(failingId).fetchHistory();
  const json = JSON.stringify(
    temporal.api.history.v1.History.toObject(history as temporal.api.history.v1.History, { bytes: String }),
  );
  assert.ok(!searchable(json).includes(FAILURE_MARKER), 'the failure message is readable in the raw history');
  assert.match(json, /Encoded failure/, 'the history holds failures with encoded attributes');
});

test('a decision sent in plain text is recorded as such, refused when the goal requires encrypted ones; through the codec it is accepted', async () => {
  const codecServer = await startCodecServer({ codec: new EncryptionCodec(parseEncryptionKeys(KEYS)) });
  const decisionsId = `encrypted-decisions-${Date.now()}`;
  const signal = (callId: string, approver: string, codec: boolean) =>
    promisify(execFile)(findTemporalBinary(), [
      'workflow',
      'signal',
      '--workflow-id',
      decisionsId,
      '--name',
      'approve',
      '--input',
      JSON.stringify({ callId, approver, reason: `approved by ${approver}` }),
      '--address',
      address,
      ...(codec ? ['--codec-endpoint', codecServer.url] : []),
    ]);
  try {
    const handle = await startGoal(harness.client, {
      input: {
        goal: 'DECISIONS-IN-CIPHER: run two commands',
        workspace: tempDirectory('keel-ws-'),
        sandbox: { network: true }, // every command waits for a human
        requireEncryptedDecisions: true,
      },
      taskQueue: harness.taskQueue,
      workflowId: decisionsId,
    });
    await harness.withWorker(async () => {
      const pendingCall = async () =>
        eventually(async () => (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId);
      const first = await pendingCall();
      await signal(first, 'plain-pat', false);
      const ignored = await eventually(async () => (await handle.query(goalStatusQuery)).lastIgnoredDecision);
      assert.equal(ignored.reason, 'plain-text-decision');
      assert.equal((await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId, first, 'still waiting');
      await signal(first, 'codec-cora', true);
      const second = await eventually(async () => {
        const callId = await pendingCall();
        return callId === first ? undefined : callId;
      });
      // keel's own client encrypts what it sends: accepted.
      await handle.executeUpdate(decideApprovalUpdate, {
        args: [{ callId: second, approved: true, approver: 'client-cleo' }],
      });
      assert.equal((await handle.result()).status, 'completed');
      // Queried while a worker runs: a query needs one, even on a closed goal.
      const decided = (await handle.query(ledgerQuery, {})).filter(
        (event) => event.kind === 'approval.decided',
      );
      assert.deepEqual(
        decided.map((event) => [event.data.approver, event.data.arrivedInPlainText === true]),
        [
          ['codec-cora', false],
          ['client-cleo', false],
        ],
      );
    });
    // In plain text, the raw history shows the refused approver; the codec's decision shows no name.
    const raw = JSON.stringify(
      temporal.api.history.v1.History.toObject(
        (await rawClient.workflow.getHandle(decisionsId).fetchHistory()) as temporal.api.history.v1.History,
        { bytes: String },
      ),
    );
    const readable = searchable(raw);
    assert.ok(
      readable.includes('plain-pat'),
      'the plain-text signal is readable in history (why it is refused)',
    );
    assert.ok(!readable.includes('codec-cora'), 'the codec encrypted the decision sent through it');
  } finally {
    await codecServer.close();
  }
});

test('without requireEncryptedDecisions a plain-text decision is accepted and recorded as such', async () => {
  const plainId = `encrypted-plain-${Date.now()}`;
  const handle = await startGoal(harness.client, {
    input: {
      goal: 'DECISIONS-IN-CIPHER: run two commands',
      workspace: tempDirectory('keel-ws-'),
      sandbox: { network: true },
    },
    taskQueue: harness.taskQueue,
    workflowId: plainId,
  });
  await harness.withWorker(async () => {
    for (const approver of ['plain-pia', 'plain-pete']) {
      const callId = await eventually(async () => {
        const view = await handle.query(goalStatusQuery);
        return view.pendingApprovals[0]?.callId;
      });
      await promisify(execFile)(findTemporalBinary(), [
        'workflow',
        'signal',
        '--workflow-id',
        plainId,
        '--name',
        'approve',
        '--input',
        JSON.stringify({ callId, approver }),
        '--address',
        address,
      ]);
      await eventually(async () =>
        (await handle.query(goalStatusQuery)).pendingApprovals[0]?.callId === callId ? undefined : true,
      );
    }
    assert.equal((await handle.result()).status, 'completed');
    const view = await handle.query(goalStatusQuery);
    assert.equal(view.counters.decisionsInPlainText, 2);
    const decided = (await handle.query(ledgerQuery, {})).filter(
      (event) => event.kind === 'approval.decided',
    );
    assert.deepEqual(
      decided.map((event) => event.data.arrivedInPlainText),
      [true, true],
    );
  });
});

test('requireEncryptedDecisions on a goal whose payloads are not encrypted fails at its start, in one line', async () => {
  // rawClient has no codec: its goal input arrives in plain text.
  const handle = await rawClient.workflow.start('goalWorkflow', {
    taskQueue: harness.taskQueue,
    workflowId: `encrypted-required-plain-${Date.now()}`,
    args: [
      {
        goal: 'DECISIONS-IN-CIPHER: x',
        workspace: tempDirectory('keel-ws-'),
        requireEncryptedDecisions: true,
      },
    ],
  });
  // Read with keel's client: the failure is encrypted like every payload the worker writes.
  const decoded = harness.client.workflow.getHandle(handle.workflowId);
  const failure = await harness.withWorker(() =>
    decoded.result().then(
      () => undefined,
      (error: unknown) => error,
    ),
  );
  assert.ok(failure instanceof Error);
  const chain: string[] = [];
  for (let error: unknown = failure; error instanceof Error; error = error.cause) chain.push(error.message);
  assert.match(chain.join(' | '), /requireEncryptedDecisions needs payload encryption/);
});
