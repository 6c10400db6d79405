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

async function keelWorker(config: string): Promise<{ code: number; stderr: string }> {
  const file = path.join(tempDirectory('keel-config-'), 'keel.config.yaml');
  writeFileSync(file, config);
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '',
    TEMPORAL_ADDRESS: await temporalAddress(),
    KEEL_TASK_QUEUE: `keel-config-${Date.now()}`,
    KEEL_CONFIG: file,
    ANTHROPIC_API_KEY: 'never-used',
  };
  return new Promise((resolve) => {
    execFile(process.execPath, [KEEL, 'worker'], { env, timeout: 60_000 }, (error, _stdout, stderr) => {
      resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stderr });
    });
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
