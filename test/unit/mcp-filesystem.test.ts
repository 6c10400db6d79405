import assert from 'node:assert/strict';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { connectMcpServers, type McpServers } from '../../src/activities/mcp/mcp-servers';
import type { ToolExecutionContext } from '../../src/activities/tools/define-tool';
import type { RegisteredTool } from '../../src/activities/tools/registered-tool';

// The real server-filesystem over stdio, confined to a temp folder: no mocks of the protocol.
const SERVER = path.resolve('node_modules/@modelcontextprotocol/server-filesystem/dist/index.js');

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };

function context(signal = new AbortController().signal): ToolExecutionContext {
  return {
    workspace: os.tmpdir(),
    goalId: 'goal',
    callId: 'call',
    idempotencyKey: undefined,
    reversibility: 'read-only',
    approved: false,
    network: false,
    signal,
    heartbeat: () => undefined,
    log: quiet,
  };
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitUntil(check: () => boolean, what: string): Promise<void> {
  for (let waited = 0; waited < 5000; waited += 20) {
    if (check()) return;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.fail(`timed out waiting until ${what}`);
}

describe('MCP over stdio: the real server-filesystem', () => {
  let root: string;
  let servers: McpServers;
  const tool = (name: string): RegisteredTool => {
    const found = servers.tools.find((candidate) => candidate.name === name);
    assert.ok(found, `${name} is offered`);
    return found;
  };

  before(async () => {
    root = await realpath(await mkdtemp(path.join(os.tmpdir(), 'keel-mcp-files-')));
    await writeFile(path.join(root, 'hello.txt'), 'hello from the temp folder\n');
    servers = await connectMcpServers({
      servers: {
        files: {
          command: process.execPath,
          args: [SERVER, root],
          tools: { edit_file: { reversibility: 'mutating' } },
        },
      },
      env: { PATH: process.env.PATH },
      log: quiet,
    });
  });

  after(async () => {
    await servers.close();
    await rm(root, { recursive: true, force: true });
  });

  test('tools are offered as files__<tool>, with tiers from the server annotations', () => {
    const names = servers.tools.map((candidate) => candidate.name);
    assert.ok(names.includes('files__read_text_file'));
    assert.ok(names.every((name) => name.startsWith('files__')));
    const tier = (name: string) => {
      const rule = tool(name).tier;
      return rule.kind === 'fixed' ? rule.tier : rule.kind;
    };
    // What server-filesystem's annotations say: reads have readOnlyHint: true; create_directory
    // has destructiveHint: false; write_file, move_file have destructiveHint: true.
    assert.equal(tier('files__read_text_file'), 'read-only');
    assert.equal(tier('files__list_directory'), 'read-only');
    assert.equal(tier('files__list_allowed_directories'), 'read-only');
    assert.equal(tier('files__create_directory'), 'mutating');
    assert.equal(tier('files__write_file'), 'irreversible');
    assert.equal(tier('files__move_file'), 'irreversible');
    // edit_file is destructiveHint: true too, but the config's override wins.
    assert.equal(tier('files__edit_file'), 'mutating');
    assert.match(tool('files__edit_file').decideTier({}, { network: false }).reason, /keel config/);
    assert.equal(tool('files__read_text_file').source, 'mcp:files');
    assert.equal(tool('files__read_text_file').inputJsonSchema.type, 'object');
  });

  test('a read returns the file text and a write creates the file', async () => {
    const read = await tool('files__read_text_file').execute(
      { path: path.join(root, 'hello.txt') },
      context(),
    );
    assert.equal(read.ok, true);
    assert.match(read.content, /hello from the temp folder/);

    const target = path.join(root, 'made.txt');
    const written = await tool('files__write_file').execute(
      { path: target, content: 'made by keel' },
      context(),
    );
    assert.equal(written.ok, true, written.content);
    assert.equal(await readFile(target, 'utf8'), 'made by keel');
  });

  test('a path outside the root is a failure outcome with candidates, not an exception', async () => {
    const outcome = await tool('files__read_text_file').execute({ path: '/etc/hostname' }, context());
    assert.equal(outcome.ok, false);
    assert.match(outcome.content, /^files__read_text_file failed: .*(denied|outside|not allowed)/i);
    assert.ok(outcome.candidates.length >= 2 && outcome.candidates.length <= 3);
    assert.ok(outcome.candidates.some((candidate) => candidate.includes('files__list_allowed_directories')));
  });

  test('parse refuses input that is not an object; the server validates the rest', () => {
    assert.equal(tool('files__read_text_file').parse('hello.txt').ok, false);
    assert.deepEqual(tool('files__read_text_file').parse({ path: 'x' }), { ok: true, input: { path: 'x' } });
  });

  test('a server killed from outside is started again on the next call', async () => {
    const pid = servers.pid('files');
    assert.ok(pid !== undefined && isRunning(pid));
    process.kill(pid, 'SIGKILL');
    await waitUntil(() => !isRunning(pid) && servers.pid('files') !== pid, 'the killed server is gone');

    const read = await tool('files__read_text_file').execute(
      { path: path.join(root, 'hello.txt') },
      context(),
    );
    assert.equal(read.ok, true, read.content);
    const restarted = servers.pid('files');
    assert.ok(restarted !== undefined && restarted !== pid && isRunning(restarted));
  });

  test('close() leaves no child process behind', async () => {
    const pid = servers.pid('files');
    assert.ok(pid !== undefined && isRunning(pid));
    await servers.close();
    assert.equal(isRunning(pid), false);
    assert.equal(servers.pid('files'), undefined);
  });
});

describe('MCP startup errors', () => {
  test('a command that does not exist is one line naming the server', async () => {
    await assert.rejects(
      connectMcpServers({
        servers: { files: { command: 'keel-no-such-command' } },
        env: { PATH: process.env.PATH },
        log: quiet,
      }),
      {
        name: 'McpServerError',
        message: 'MCP server "files": failed to start: spawn keel-no-such-command ENOENT',
      },
    );
  });

  test('a server that exits at once names the server and what it wrote', async () => {
    await assert.rejects(
      connectMcpServers({
        servers: {
          broken: {
            command: process.execPath,
            args: ['-e', 'console.error("no config here"); process.exit(3)'],
          },
        },
        env: { PATH: process.env.PATH },
        log: quiet,
      }),
      (error: Error) => {
        assert.equal(error.name, 'McpServerError');
        assert.match(error.message, /^MCP server "broken": failed to start: .*no config here/);
        return true;
      },
    );
  });

  test('a server that dies with an error and then a version banner is reported with the error', async () => {
    // What Node itself writes for an uncaught error: the error, its stack, then "Node.js v20…" last.
    const script = [
      'process.stderr.write("Error: TICKETS_TOKEN is not set\\n    at main (/srv/tickets.js:3:9)\\n\\n");',
      'process.stderr.write("Node.js v20.20.2\\n");',
      'process.exit(1);',
    ].join(' ');
    await assert.rejects(
      connectMcpServers({
        servers: { tickets: { command: process.execPath, args: ['-e', script] } },
        env: { PATH: process.env.PATH },
        log: quiet,
      }),
      (error: Error) => {
        assert.equal(error.name, 'McpServerError');
        assert.match(
          error.message,
          /^MCP server "tickets": failed to start: .*it wrote: Error: TICKETS_TOKEN is not set$/,
        );
        assert.doesNotMatch(error.message, /Node\.js v20|\n/);
        return true;
      },
    );
  });

  test('a server that never answers is cut by the startup timeout, not a hang', async () => {
    await assert.rejects(
      connectMcpServers({
        servers: {
          mute: {
            command: process.execPath,
            args: ['-e', 'setInterval(() => {}, 1000)'],
            startupTimeoutMs: 500,
          },
        },
        env: { PATH: process.env.PATH },
        log: quiet,
      }),
      /^McpServerError: MCP server "mute": failed to start: .*(timed out|timeout|aborted)/i,
    );
  });
});

describe('a stdio server environment', () => {
  test('is PATH and the allowlisted variables that are set, never the rest', async () => {
    const { serverEnvironment } = await import('../../src/activities/mcp/mcp-connection');
    const warnings: string[] = [];
    const passed = serverEnvironment(
      'files',
      ['HOME', 'GITHUB_TOKEN', 'ANTHROPIC_API_KEY'],
      { PATH: '/bin', HOME: '/home/k', SECRET: 'x', ANTHROPIC_API_KEY: 'sk-ant' },
      (message) => warnings.push(message),
    );
    assert.deepEqual(passed, { PATH: '/bin', HOME: '/home/k' });
    assert.deepEqual(warnings, [
      "GITHUB_TOKEN is not set in the worker's environment, so files does not get it",
    ]);
  });
});
