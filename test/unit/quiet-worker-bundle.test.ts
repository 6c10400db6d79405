// Issue 46: a worker that bundles at start said some fifteen lines of webpack module statistics
// (the SDK logs webpack's report at INFO); keel's bundler options cut the report to its summary.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { bundleWorkflowCode, type BundleOptions } from '@temporalio/worker';
import { BUNDLE_STATS_VARIABLE, workflowBundlerOptions } from '../../src/worker/bundle-options';

const WORKFLOWS = path.resolve(__dirname, '../fixtures/bundle-target/workflows.ts');

/** What the SDK's bundler logs at INFO and above, as the worker's runtime logger would print it. */
async function bundleLog(options: Partial<BundleOptions>): Promise<string[]> {
  const logged: string[] = [];
  const keep = (message: string) => logged.push(message);
  const logger = {
    log: (_level: string, message: string) => keep(message),
    trace: () => undefined,
    debug: () => undefined,
    info: keep,
    warn: keep,
    error: keep,
  };
  await bundleWorkflowCode({ workflowsPath: WORKFLOWS, logger, ...options });
  return logged.flatMap((message) => message.split('\n'));
}

test('a worker bundling at start logs one line of webpack: built, and how long it took', async () => {
  const lines = await bundleLog(workflowBundlerOptions);
  const webpack = lines.filter((line) => line !== 'Workflow bundle created'); // the SDK's own line
  assert.equal(webpack.length, 1, lines.join('\n'));
  assert.match(webpack[0] ?? '', /compiled successfully in \d+ ms/);
  assert.doesNotMatch(lines.join('\n'), /modules by path|orphan modules|asset /);
});

test(`${BUNDLE_STATS_VARIABLE}=1 keeps webpack's whole report`, async () => {
  process.env[BUNDLE_STATS_VARIABLE] = '1';
  try {
    const lines = await bundleLog(workflowBundlerOptions);
    assert.ok(lines.length > 3, lines.join('\n'));
    assert.match(lines.join('\n'), /asset workflow-bundle-/);
  } finally {
    delete process.env[BUNDLE_STATS_VARIABLE];
  }
});
