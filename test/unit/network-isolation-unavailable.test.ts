import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { defineTool } from '../../src/activities/tools/define-tool';
import { registeredFromDefinition } from '../../src/activities/tools/registered-tool';
import { networkIsolationUnavailable } from '../../src/activities/tools/sandbox/network-isolation';
import { nothingRanOutcome } from '../../src/activities/tools/sandbox/network-isolation-outcome';
import { sandboxStatus } from '../../src/activities/tools/sandbox/sandbox-status';
import {
  ToolActivityFailureType,
  createToolActivities,
  type ExecuteToolInput,
} from '../../src/activities/tools/tool-activities';
import { ToolRegistry } from '../../src/activities/tools/tool-registry';
import { createToolRegistry } from '../../src/worker';
import { makeWorkspace } from './tools-test-helpers';

/**
 * A command granted network on a worker that cannot isolate it: nothing is started (the typed
 * NetworkIsolationUnavailable failure is thrown while the launcher is built), so the model and
 * the ledger read "not run", never an irreversible call that "began and then failed midway".
 */

function irreversibleCall(workspace: string, overrides: Partial<ExecuteToolInput>): ExecuteToolInput {
  return {
    toolName: 'run_command',
    input: {},
    workspace,
    callId: 'call-1',
    idempotencyKey: 'goal-1/call-1',
    reversibility: 'irreversible',
    approved: true,
    ...overrides,
  };
}

function journalRecords(journalDirectory: string): Array<Record<string, unknown>> {
  return readdirSync(journalDirectory)
    .filter((name) => name.endsWith('.json'))
    .map(
      (name) =>
        JSON.parse(readFileSync(path.join(journalDirectory, name), 'utf8')) as Record<string, unknown>,
    );
}

test('run_command granted network where slirp4netns is missing: not run, said so, journal finished', async () => {
  const status = sandboxStatus();
  assert.ok(status.mode === 'bubblewrap', 'the sandbox is needed to reach the network launcher');
  // The probe also searches /usr/sbin, /sbin, /usr/bin and /bin, so PATH cannot hide slirp4netns:
  // this worker's (cached) status is made to lack it for the test, and restored after.
  const { network } = status;
  Object.assign(status, { network: { available: false, reason: 'slirp4netns not found' } });
  try {
    const workspace = makeWorkspace();
    const journalDirectory = path.join(makeWorkspace('keel-journal-'), 'journal');
    const { executeTool } = createToolActivities({ registry: createToolRegistry({}), journalDirectory });
    const call = irreversibleCall(workspace, {
      input: { command: 'echo ran > ran.txt' },
      sandbox: { network: true },
    });
    const outcome = await executeTool(call);
    assert.equal(outcome.ok, false);
    assert.match(
      outcome.content,
      /^Not run \(NetworkIsolationUnavailable\): nothing was started and nothing changed\. run_command: this goal allows network, but this worker cannot isolate a command's network \(slirp4netns not found\)/,
    );
    assert.doesNotMatch(outcome.content, /run_command failed|midway/);
    assert.match(outcome.candidates[0] ?? '', /Do not run it again on this worker/);
    assert.deepEqual(readdirSync(workspace), [], 'nothing ran');
    const [record] = journalRecords(journalDirectory);
    assert.equal(record?.ok, false);
    assert.equal(record?.error, undefined, 'finished with an outcome, not an error');
  } finally {
    Object.assign(status, { network });
  }
});

test('a tool that lets NetworkIsolationUnavailable through: a not-run outcome, not OutcomeUnknown', async () => {
  const workspace = makeWorkspace();
  const journalDirectory = path.join(makeWorkspace('keel-journal-'), 'journal');
  const definition = defineTool({
    name: 'fetch_page',
    description: 'Fetches a page',
    input: z.object({}),
    reversibility: 'irreversible',
    execute: () => Promise.resolve('never'),
  });
  // A registered tool may throw (it should not); defineTool's wrapper would catch this first.
  const throwing = (error: Error) => ({
    ...registeredFromDefinition(definition, 'worker'),
    execute: () => Promise.reject(error),
  });
  const isolation = createToolActivities({
    registry: new ToolRegistry([throwing(networkIsolationUnavailable('ip not found (install iproute2)'))]),
    journalDirectory,
  });
  const outcome = await isolation.executeTool(irreversibleCall(workspace, { toolName: 'fetch_page' }));
  assert.equal(outcome.ok, false);
  assert.match(outcome.content, /^Not run \(NetworkIsolationUnavailable\): nothing was started/);
  assert.match(outcome.content, /\(ip not found \(install iproute2\)\)/);
  assert.equal(journalRecords(journalDirectory)[0]?.ok, false);

  // Any other error thrown midway is still an outcome nobody can know.
  const other = createToolActivities({
    registry: new ToolRegistry([throwing(new Error('gateway hung up'))]),
    journalDirectory: path.join(makeWorkspace('keel-journal-'), 'journal'),
  });
  await assert.rejects(
    other.executeTool(irreversibleCall(workspace, { toolName: 'fetch_page' })),
    (error: unknown) =>
      error instanceof ApplicationFailure &&
      error.type === ToolActivityFailureType.OutcomeUnknown &&
      /began and then failed midway \(gateway hung up\)/.test(error.message),
  );
});

test('only the NetworkIsolationUnavailable type means nothing ran', () => {
  assert.equal(nothingRanOutcome(new Error('NetworkIsolationUnavailable')), undefined);
  assert.equal(nothingRanOutcome(ApplicationFailure.nonRetryable('x', 'OutcomeUnknown')), undefined);
  assert.equal(
    nothingRanOutcome(ApplicationFailure.nonRetryable('no slirp', 'NetworkIsolationUnavailable'))?.ok,
    false,
  );
});
