import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import {
  KeelConfigError,
  loadKeelConfig,
  parseKeelConfig,
  validateKeelConfig,
} from '../../src/config/keel-config';

const VALID = `
mcpServers:
  files:
    command: npx
    args: [-y, "@modelcontextprotocol/server-filesystem", ./data]
    env: [HOME, GITHUB_TOKEN]
    timeoutMs: 60000
    tools:
      write_file: { reversibility: mutating }
  tickets:
    url: http://127.0.0.1:3000/mcp
    headers: { Authorization: TICKETS_AUTH }
`;

function errorOf(text: string): string {
  try {
    parseKeelConfig(text, 'keel.config.yaml');
  } catch (error) {
    assert.ok(error instanceof KeelConfigError);
    assert.equal(error.message.includes('\n'), false, 'one line');
    return error.message;
  }
  assert.fail('expected a KeelConfigError');
}

describe('keel config', () => {
  test('a valid file parses into servers of both kinds', () => {
    const config = parseKeelConfig(VALID, 'keel.config.yaml');
    assert.deepEqual(config.mcpServers?.files, {
      command: 'npx',
      args: ['-y', '@modelcontextprotocol/server-filesystem', './data'],
      env: ['HOME', 'GITHUB_TOKEN'],
      timeoutMs: 60000,
      tools: { write_file: { reversibility: 'mutating' } },
    });
    assert.deepEqual(config.mcpServers?.tickets, {
      url: 'http://127.0.0.1:3000/mcp',
      headers: { Authorization: 'TICKETS_AUTH' },
    });
    assert.deepEqual(parseKeelConfig('', 'keel.config.yaml'), {});
  });

  test('an unknown key is named with its server', () => {
    assert.equal(
      errorOf('mcpServers:\n  github:\n    comand: npx\n'),
      'keel.config.yaml: mcpServers.github: unknown key "comand"',
    );
    assert.equal(errorOf('mcpSrvers: {}\n'), 'keel.config.yaml: unknown key "mcpSrvers"');
    assert.equal(
      errorOf('mcpServers:\n  a:\n    command: x\n    tools: { w: { tier: mutating } }\n'),
      'keel.config.yaml: mcpServers.a.tools.w: unknown key "tier"',
    );
  });

  test('a server name that cannot prefix a tool name is refused', () => {
    assert.equal(
      errorOf('mcpServers:\n  "git hub":\n    command: x\n'),
      'keel.config.yaml: mcpServers: "git hub" is not a server name: use 1-40 letters, digits, _ or -',
    );
  });

  test('command and url together, or neither, or keys of the other kind', () => {
    assert.equal(
      errorOf('mcpServers:\n  a:\n    command: x\n    url: http://127.0.0.1/mcp\n'),
      'keel.config.yaml: mcpServers.a: give either "command" (stdio) or "url" (Streamable HTTP), not both',
    );
    assert.match(errorOf('mcpServers:\n  a: {}\n'), /^keel\.config\.yaml: mcpServers\.a: give "command"/);
    assert.equal(
      errorOf('mcpServers:\n  a:\n    url: http://127.0.0.1/mcp\n    env: [HOME]\n'),
      'keel.config.yaml: mcpServers.a.env: applies to command (stdio) servers only',
    );
  });

  test('ANTHROPIC_API_KEY is never passed to a server, as a variable or a header', () => {
    assert.equal(
      errorOf('mcpServers:\n  a:\n    command: x\n    env: [HOME, ANTHROPIC_API_KEY]\n'),
      'keel.config.yaml: mcpServers.a.env.1: "ANTHROPIC_API_KEY" is keel’s own model key and is never passed to an MCP server',
    );
    assert.match(
      errorOf(
        'mcpServers:\n  a:\n    url: http://127.0.0.1/mcp\n    headers: { X-Key: ANTHROPIC_API_KEY }\n',
      ),
      /^keel\.config\.yaml: mcpServers\.a\.headers\.X-Key: "ANTHROPIC_API_KEY" is keel’s own model key/,
    );
  });

  test('bad values and bad YAML are one line each', () => {
    assert.equal(
      errorOf('mcpServers:\n  a:\n    command: x\n    tools: { w: { reversibility: maybe } }\n'),
      'keel.config.yaml: mcpServers.a.tools.w.reversibility: Invalid option: expected one of "read-only"|"mutating"|"irreversible" (got "maybe")',
    );
    assert.match(errorOf('mcpServers:\n  a: [\n'), /^keel\.config\.yaml: not valid YAML: /);
  });

  test('a config given in worker options is validated the same way', () => {
    assert.throws(
      () => validateKeelConfig({ mcpServers: { a: { command: 'x', comand: 'y' } } }, 'worker options'),
      { name: 'KeelConfigError', message: 'worker options: mcpServers.a: unknown key "comand"' },
    );
  });

  describe('loading', () => {
    const folders: string[] = [];
    after(async () => {
      await Promise.all(folders.map((folder) => rm(folder, { recursive: true, force: true })));
    });
    async function folder(): Promise<string> {
      const created = await mkdtemp(path.join(os.tmpdir(), 'keel-config-'));
      folders.push(created);
      return created;
    }

    test('no file in the working directory means no MCP servers', async () => {
      assert.deepEqual(loadKeelConfig({ cwd: await folder(), env: {} }), { config: {}, file: undefined });
    });

    test('keel.config.yaml in the working directory is read', async () => {
      const cwd = await folder();
      await writeFile(path.join(cwd, 'keel.config.yaml'), VALID);
      const loaded = loadKeelConfig({ cwd, env: {} });
      assert.equal(loaded.file, path.join(cwd, 'keel.config.yaml'));
      assert.deepEqual(Object.keys(loaded.config.mcpServers ?? {}), ['files', 'tickets']);
    });

    test('KEEL_CONFIG names the file, and a missing one is an error', async () => {
      const cwd = await folder();
      await writeFile(
        path.join(cwd, 'other.yaml'),
        'mcpServers:\n  x:\n    url: http://127.0.0.1/mcp\n    comand: 1\n',
      );
      assert.throws(() => loadKeelConfig({ cwd, env: { KEEL_CONFIG: 'other.yaml' } }), {
        message: 'other.yaml: mcpServers.x: unknown key "comand"',
      });
      assert.throws(() => loadKeelConfig({ cwd, env: { KEEL_CONFIG: 'missing.yaml' } }), {
        name: 'KeelConfigError',
        message: 'missing.yaml: no such file (named by KEEL_CONFIG)',
      });
    });
  });
});
