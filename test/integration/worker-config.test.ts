import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { stopOwnServer, temporalAddress, tempDirectory } from '../support/temporal';

// Bad tool configuration stops `keel worker` at start with one line naming the file, server or
// tool: never a worker that runs and a goal that hangs.
const KEEL = path.resolve(__dirname, '../../bin/keel.js');

after(stopOwnServer);

async function keelWorker(
  config: string,
  extra: { env?: Record<string, string>; args?: string[] } = {},
): Promise<{ code: number; stderr: string }> {
  const file = path.join(tempDirectory('keel-config-'), 'keel.config.yaml');
  writeFileSync(file, config);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    TEMPORAL_ADDRESS: await temporalAddress(),
    KEEL_TASK_QUEUE: `keel-config-${Date.now()}`,
    KEEL_CONFIG: file,
    ANTHROPIC_API_KEY: 'never-used',
    ...extra.env,
  };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [KEEL, 'worker', ...(extra.args ?? [])],
      { env, timeout: 60_000 },
      (error, _stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr });
      },
    );
  });
}

function assertOneLine(run: { code: number; stderr: string }, pattern: RegExp): void {
  assert.notEqual(run.code, 0);
  const lines = run.stderr.trim().split('\n');
  assert.equal(lines.length, 1, `one line, got:\n${run.stderr}`);
  assert.match(lines[0] ?? '', pattern);
}

test(
  'a config key nobody knows, an MCP server that cannot start, or one that lists nothing: one line at start',
  { timeout: 180_000 },
  async () => {
    assertOneLine(
      await keelWorker('mcpServers:\n  files:\n    comand: npx\n'),
      /keel\.config\.yaml.*mcpServers\.files.*unknown key "comand"/,
    );
    assertOneLine(
      await keelWorker('mcpServers:\n  ghost:\n    command: /nonexistent/mcp-server\n'),
      /MCP server "ghost": failed to start/,
    );
    assertOneLine(await keelWorker('mcpServer: {}\n'), /unknown key "mcpServer"/);
  },
);

test('a bad host id, workspace root or concurrency limit: one line naming the variable or flag', async () => {
  const ok = 'mcpServers: {}\n';
  assertOneLine(
    await keelWorker(ok, { env: { KEEL_HOST_ID: 'no spaces please' } }),
    /^keel: KEEL_HOST_ID is "no spaces please": a host id is/,
  );
  assertOneLine(
    await keelWorker(ok, { env: { KEEL_WORKSPACE_ROOTS: 'workspaces' } }),
    /^keel: KEEL_WORKSPACE_ROOTS .*"workspaces" is not an absolute path/,
  );
  assertOneLine(
    await keelWorker(ok, { args: ['--workspace-root', '/nonexistent/keel-root'] }),
    /^keel: the workspaceRoots option \(--workspace-root\): workspace root "\/nonexistent\/keel-root" does not exist$/,
  );
  // Past the settings, at the claim: a replica with no root has no marker to prove its disk by.
  assertOneLine(await keelWorker(ok, { args: ['--replica'] }), /^keel: --replica needs a workspace root/);
  assertOneLine(
    await keelWorker(ok, { env: { KEEL_MAX_CONCURRENT_ACTIVITIES: 'lots' } }),
    /^keel: KEEL_MAX_CONCURRENT_ACTIVITIES must be a positive whole number/,
  );
  assertOneLine(await keelWorker(ok, { args: ['--host-id', 'a/b'] }), /--host-id.*a\/b.*a host id is/);
  assertOneLine(
    await keelWorker(ok, { args: ['--max-workflows', '0'] }),
    /--max-workflows.*positive whole number/,
  );
});
