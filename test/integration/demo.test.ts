import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { freePort, startDevServer, type DevServer } from '../../src/dev-server/dev-server';
import { KEEL_SEARCH_ATTRIBUTES } from '../../src/dev-server/search-attributes';
import { tempDirectory } from '../support/temporal';

/**
 * `npm run demo`'s program, run the way CI runs it (no TTY, no ANTHROPIC_API_KEY), against the
 * server TEMPORAL_ADDRESS names. Issue 13: against a plain `temporal server start-dev` it hung at
 * "thinking" on BadSearchAttributes, and after stopping its own server it printed a dead link.
 */

const ROOT = path.resolve(__dirname, '../..');
const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

function runDemo(env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/demo/run-demo.ts')], {
      cwd: ROOT,
      // No ANTHROPIC_API_KEY (scripted model), no KEEL_WEB_UI_URL, no TTY.
      env: { PATH: process.env.PATH, HOME: process.env.HOME, CI: '1', KEEL_SANDBOX: 'off', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`the demo did not finish within 150 s:\n${output}`));
    }, 150_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: code ?? 1, output });
    });
  });
}

async function customAttributes(address: string): Promise<Record<string, unknown>> {
  const connection = await Connection.connect({ address });
  try {
    const response = await connection.operatorService.listSearchAttributes({ namespace: 'default' });
    return response.customAttributes ?? {};
  } finally {
    await connection.close();
  }
}

test(
  "on a plain dev server the demo registers keel's search attributes and its goal completes",
  { timeout: 180_000 },
  async () => {
    const server: DevServer = await startDevServer({ ephemeral: true, searchAttributes: false });
    cleanups.push(() => server.stop());
    const demoDirectory = tempDirectory('keel-demo-');
    cleanups.push(() => rmSync(demoDirectory, { recursive: true, force: true }));
    assert.equal(
      (await customAttributes(server.address)).KeelStatus,
      undefined,
      'a plain server to begin with',
    );

    const { code, output } = await runDemo({
      TEMPORAL_ADDRESS: server.address,
      KEEL_DEMO_DIR: demoDirectory,
    });
    assert.equal(code, 0, output);
    assert.match(output, new RegExp(`temporal: using the server already on ${server.address}`));
    assert.match(
      output,
      /temporal: registered keel's search attributes \(KeelStatus, KeelPhase, .*\) in namespace default/,
    );
    assert.match(output, /goal started: goal-\S+ \(task queue keel-demo-/);
    assert.match(output, /goal completed/);
    assert.doesNotMatch(output, /BadSearchAttributes/);
    assert.match(output, /the server on .* was already running; the demo leaves it running/);
    assert.doesNotMatch(output, /web ui:/, 'a headless server has no UI to link to');
    const registered = await customAttributes(server.address);
    for (const name of Object.keys(KEEL_SEARCH_ATTRIBUTES))
      assert.notEqual(registered[name], undefined, name);
  },
);

test(
  'a non-interactive demo that started its own server says plainly that it stopped it',
  { timeout: 180_000 },
  async () => {
    let port = await freePort();
    while (port + 1000 > 65_535) port = await freePort(); // the UI goes on port + 1000
    const demoDirectory = tempDirectory('keel-demo-');
    cleanups.push(() => rmSync(demoDirectory, { recursive: true, force: true }));

    const { code, output } = await runDemo({
      TEMPORAL_ADDRESS: `127.0.0.1:${port}`,
      KEEL_DEMO_DIR: demoDirectory,
    });
    assert.equal(code, 0, output);
    assert.match(
      output,
      new RegExp(
        `temporal: starting a dev server on 127\\.0\\.0\\.1:${port} \\(Web UI http://localhost:${port + 1000}`,
      ),
    );
    assert.match(output, /goal completed/);
    const ending = output.slice(output.indexOf('workspace:'));
    assert.doesNotMatch(ending, /web ui:/, 'no link after the server stopped');
    assert.match(
      ending,
      /temporal: the dev server has stopped \(a non-interactive run leaves no server behind\)/,
    );
    assert.match(
      ending,
      new RegExp(
        `to look at the goal again: temporal server start-dev --port ${port} --db-filename \\S+temporal\\.db and open http://localhost:${port + 1000}/namespaces/default/workflows/goal-`,
      ),
    );
    await assert.rejects(
      Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: 1000 }).then((connection) =>
        connection.workflowService.getSystemInfo({}).finally(() => connection.close()),
      ),
      'the server is really gone',
    );
  },
);
