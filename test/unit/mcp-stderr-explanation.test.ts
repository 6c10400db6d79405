import { test } from 'node:test';
import assert from 'node:assert/strict';
import { explainingStderr } from '../../src/activities/mcp/stderr-explanation';

// Real stderr of servers that died at start (Node 20, Python 3), as they print it.
const NODE_UNCAUGHT = `[eval]:1
throw new Error('config file keel.json: not readable')
^

Error: config file keel.json: not readable
    at [eval]:1:7
    at runScriptInThisContext (node:internal/vm:209:10)
    at node:internal/main/eval_string:51:3

Node.js v20.20.2
`;

const NODE_MISSING_MODULE = `node:internal/modules/cjs/loader:1210
  throw err;
  ^

Error: Cannot find module '/srv/mcp/server.js'
    at Module._resolveFilename (node:internal/modules/cjs/loader:1207:15)
    at node:internal/main/run_main_module:28:49 {
  code: 'MODULE_NOT_FOUND',
  requireStack: []
}

Node.js v20.20.2
`;

const PYTHON_MISSING_MODULE = `Traceback (most recent call last):
  File "<string>", line 1, in <module>
ModuleNotFoundError: No module named 'mcp_tickets'
`;

test("a Node server's uncaught error is quoted, not its version banner nor the throw line", () => {
  assert.equal(explainingStderr(NODE_UNCAUGHT), 'Error: config file keel.json: not readable');
  assert.equal(explainingStderr(NODE_MISSING_MODULE), "Error: Cannot find module '/srv/mcp/server.js'");
});

test("a Python server's error line is quoted, not the traceback", () => {
  assert.equal(explainingStderr(PYTHON_MISSING_MODULE), "ModuleNotFoundError: No module named 'mcp_tickets'");
});

test('the first line that names an error wins over later log lines', () => {
  const stderr = 'starting tickets server\nerror: TICKETS_TOKEN is not set\nshutting down\nbye\n';
  assert.equal(explainingStderr(stderr), 'error: TICKETS_TOKEN is not set');
});

test('a line that says what went wrong without an error type is found too; a usage hint after an error joins it', () => {
  const stderr =
    'loading config\ncannot open /etc/tickets.yaml (EACCES)\nrun it as the tickets user: sudo -u tickets …\nexiting\n';
  assert.equal(explainingStderr(stderr), 'cannot open /etc/tickets.yaml (EACCES)');
  const withHint =
    'Error: no allowed directories given\nUsage: mcp-server-filesystem <dir>...\nNode.js v22.1.0\n';
  assert.equal(
    explainingStderr(withHint),
    'Error: no allowed directories given | Usage: mcp-server-filesystem <dir>...',
  );
});

test('with nothing that names a problem, the last line that is not noise; nothing at all is empty', () => {
  assert.equal(explainingStderr('no config here\n\nNode.js v20.20.2\n'), 'no config here');
  assert.equal(explainingStderr('\n  \n'), '');
});

test('a very long line is cut', () => {
  const line = `Error: ${'x'.repeat(1000)}`;
  assert.equal(explainingStderr(line).length, 301);
});
