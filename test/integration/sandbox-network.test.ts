// The hole, at the port: a command a goal grants network must not reach the Temporal
// frontend (no auth on the dev server) on this host's loopback, where it could signal approvals.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { connect } from 'node:net';
import { readdirSync } from 'node:fs';
import { commandEnvironment } from '../../src/activities/tools/command-environment';
import { runSandboxedCommand } from '../../src/activities/tools/sandbox';
import { runCommand } from '../../src/activities/tools/run-command';
import { stopOwnServer, temporalAddress } from '../support/temporal';
import { makeWorkspace, toolContext } from '../unit/tools-test-helpers';

after(stopOwnServer);

/** Resolves when a TCP connection to host:port opens, rejects when it is refused. */
function reachableFromHost(host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port }, () => {
      socket.end();
      resolve();
    });
    socket.on('error', reject);
  });
}

test("a network-granted command cannot reach the Temporal frontend on the host's loopback", async () => {
  const [host = '', portText = ''] = (await temporalAddress()).split(':');
  const port = Number(portText);
  // Control: from the host, the frontend accepts connections at this address.
  await reachableFromHost(host, port);
  const workspace = makeWorkspace('keel-net-');
  const probe = `curl -sS -m 5 -o /dev/null http://${host}:${port}/; echo "curl=$?"; curl -sS -m 5 -o /dev/null http://10.0.2.2:${port}/; echo "gateway=$?"`;
  const straight = await runSandboxedCommand({
    command: probe,
    workspace,
    env: commandEnvironment({ idempotencyKey: 'sandbox-network/call' }),
    timeoutMs: 30_000,
    network: true,
  });
  // 7: curl could not connect at all (the port is not there), not an answer it disliked.
  assert.equal(straight.stdout.toString(), 'curl=7\ngateway=7\n', straight.stderr.toString());
  // On a copy-on-write layer (a command that changes files), the same.
  const layered = await runCommand(
    { command: `${probe} > probe.txt; cat probe.txt`, changesFiles: true },
    toolContext(workspace, { network: true }),
  );
  assert.match(layered.content, /curl=7\ngateway=7/, layered.content);
  assert.deepEqual(readdirSync(workspace), ['probe.txt']);
});
