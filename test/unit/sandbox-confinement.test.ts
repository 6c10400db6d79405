// The real bubblewrap sandbox under small limits: a network of its own that cannot reach this
// host, resource limits that stop a command and discard its layer whole, no inherited descriptors.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { ApplicationFailure } from '@temporalio/common';
import { commandEnvironment } from '../../src/activities/tools/command-environment';
import { runCommand } from '../../src/activities/tools/run-command';
import { runSandboxedCommand } from '../../src/activities/tools/sandbox';
import {
  hostAddresses,
  NETWORK_ISOLATION_UNAVAILABLE,
} from '../../src/activities/tools/sandbox/network-isolation';
import { resetSandboxStatus, sandboxStatus } from '../../src/activities/tools/sandbox/sandbox-status';
import { makeWorkspace, toolContext } from './tools-test-helpers';

// Small limits, read once by the sandbox's probe: nothing here needs gigabytes to prove a limit.
Object.assign(process.env, {
  KEEL_COMMAND_MAX_MEMORY: '256M',
  KEEL_COMMAND_MAX_FILE_SIZE: '1M',
  KEEL_COMMAND_MAX_PROCESSES: '77',
  KEEL_COMMAND_MAX_OPEN_FILES: '99',
  KEEL_LAYER_MAX_BYTES: '1500K',
  KEEL_LAYER_MAX_ENTRIES: '50',
  // Tests run as root here, which RLIMIT_NPROC exempts: the per-call pids cgroup holds the limit.
  KEEL_PROCESS_CGROUP: 'on',
});
resetSandboxStatus();

const servers: Server[] = [];
after(async () => {
  for (const server of servers) await new Promise((resolve) => server.close(resolve));
});

async function serve(host: string): Promise<number> {
  const server = createServer((_request, response) => response.end('keel-host-service'));
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return (server.address() as AddressInfo).port;
}

async function sandboxed(command: string, network: boolean, workspace = makeWorkspace('keel-confine-')) {
  const result = await runSandboxedCommand({
    command,
    workspace,
    env: commandEnvironment({ idempotencyKey: 'confinement-test/call' }),
    timeoutMs: 30_000,
    network,
  });
  return { ...result, output: `${result.stdout.toString()}\n${result.stderr.toString()}` };
}

/** An unapproved mutating call on a copy-on-write layer, as the workflow sends it. */
function mutating(workspace: string, network = false) {
  return toolContext(workspace, { reversibility: 'mutating', approved: false, network });
}

test('this host confines with bubblewrap, isolates network and sets limits (else the tests below prove nothing)', () => {
  const status = sandboxStatus();
  assert.equal(status.mode, 'bubblewrap', JSON.stringify(status));
  assert.ok(status.mode === 'bubblewrap' && status.network.available, JSON.stringify(status));
  assert.ok(status.mode === 'bubblewrap' && status.layers.available);
  assert.ok(existsSync('/usr/bin/curl'), 'these checks use curl (Debian package curl)');
});

test("with network granted, the host's loopback, its own addresses and the gateway's mapping are unreachable", async () => {
  const loopbackPort = await serve('127.0.0.1');
  const everywherePort = await serve('0.0.0.0');
  const targets = [
    `127.0.0.1:${loopbackPort}`,
    `localhost:${loopbackPort}`,
    `10.0.2.2:${loopbackPort}`, // slirp4netns maps its gateway to the host's loopback unless told not to
    ...hostAddresses().map((address) => `${address}:${everywherePort}`),
  ];
  assert.ok(targets.length > 3, 'this host has a non-loopback address to try');
  // Control: from the host every one of these answers, so "unreachable" below is the sandbox's doing.
  for (const target of targets.filter((entry) => !entry.startsWith('10.0.2.2'))) {
    const { stdout } = await promisify(execFile)('curl', ['-sS', '-m', '3', `http://${target}/`]);
    assert.equal(stdout, 'keel-host-service', target);
  }
  const probes = targets
    .map((target) => `curl -sS -m 3 http://${target}/ && echo " REACHED ${target}";`)
    .join(' ');
  const result = await sandboxed(`${probes} true`, true);
  assert.equal(result.exitCode, 0, result.output);
  assert.ok(!result.output.includes('REACHED'), result.output);
  assert.ok(!result.output.includes('keel-host-service'), result.output);
});

test('the isolated network is set up without error: a default route out, DNS configuration, a loopback of its own', async () => {
  const result = await sandboxed(
    'ip route | grep -q "^default via 10.0.2.2" && echo route-ok; test -r /etc/resolv.conf && echo dns-config-ok; ' +
      '(cd /tmp && echo own > index.html && python3 -m http.server 18181 --bind 127.0.0.1 >/dev/null 2>&1 & sleep 1; curl -sS -m 3 http://127.0.0.1:18181/index.html; kill %1 2>/dev/null); true',
    true,
  );
  assert.equal(result.exitCode, 0, result.output);
  assert.match(result.stdout.toString(), /route-ok\ndns-config-ok\nown\n/);
});

test('a network-granted command on a copy-on-write layer is isolated too, and its files are applied', async () => {
  const port = await serve('127.0.0.1');
  const workspace = makeWorkspace('keel-confine-');
  const outcome = await runCommand(
    {
      command: `curl -sS -m 3 http://127.0.0.1:${port}/ > fetched.txt; echo done > made.txt`,
      changesFiles: true,
    },
    toolContext(workspace, { network: true }),
  );
  assert.ok(!outcome.content.includes('keel-host-service'), outcome.content);
  assert.deepEqual(readdirSync(workspace).sort(), ['fetched.txt', 'made.txt']);
});

test('network granted where this worker cannot isolate it: NetworkIsolationUnavailable, and nothing runs', async () => {
  const status = sandboxStatus();
  assert.ok(status.mode === 'bubblewrap');
  const workspace = makeWorkspace('keel-confine-');
  await assert.rejects(
    runSandboxedCommand({
      command: 'touch ran.txt',
      workspace,
      env: commandEnvironment({ idempotencyKey: 'confinement-test/call' }),
      timeoutMs: 30_000,
      network: true,
      status: { ...status, network: { available: false, reason: 'slirp4netns not found' } },
    }),
    (error: unknown) => error instanceof ApplicationFailure && error.type === NETWORK_ISOLATION_UNAVAILABLE,
  );
  assert.deepEqual(readdirSync(workspace), []);
});

/** What a process the command started holds once it runs (not the shell, which holds descriptors of its own while it redirects, nor a child still between fork and exec). */
const LIST_DESCRIPTORS =
  'sleep 5 & sleep 0.3; ls /proc/$!/fd > /tmp/descriptors; kill $!; tr "\\n" " " < /tmp/descriptors';

test('inside the sandbox only stdin, stdout and stderr are open, even when the worker inherited more', async () => {
  const workspace = makeWorkspace('keel-confine-');
  for (const network of [false, true]) {
    const direct = await sandboxed(LIST_DESCRIPTORS, network, workspace);
    assert.equal(direct.stdout.toString(), '0 1 2 ', direct.output);
  }
  // A worker started with an extra descriptor open (fd 3, a pipe) passes it on to its children.
  const runner = path.join(__dirname, 'sandbox-child-runner.ts');
  const child = spawn(process.execPath, ['--import', 'tsx', runner, LIST_DESCRIPTORS, workspace], {
    stdio: ['ignore', 'pipe', 'inherit', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const code = await new Promise((resolve) => child.on('close', resolve));
  assert.equal(code, 0);
  assert.equal((JSON.parse(output) as { stdout: string }).stdout, '0 1 2 ');
});

test('the limits are set inside: memory, file size, processes, open files', async () => {
  const result = await sandboxed(
    'ulimit -d; ulimit -f; ulimit -p 2>/dev/null || true; ulimit -u 2>/dev/null; ulimit -n',
    false,
  );
  assert.equal(result.exitCode, 0, result.output);
  const lines = result.stdout.toString().trim().split('\n');
  assert.equal(lines[0], String(256 * 1024), 'KiB of private writable memory (RLIMIT_DATA)');
  assert.ok(lines.includes('77'), result.output);
  assert.ok(lines.includes('99'), result.output);
});

test('over the memory limit an allocation fails inside the sandbox', async () => {
  const allocate = (megabytes: number) =>
    `/usr/bin/python3 -c 'bytearray(${megabytes} * 1024 * 1024); print("allocated ${megabytes}")'`;
  const result = await sandboxed(`${allocate(64)}; ${allocate(400)}`, false);
  assert.match(result.stdout.toString(), /^allocated 64\n$/, result.output);
  // 64 MiB fits in 256 MiB of private writable memory; 400 MiB cannot (MemoryError, or killed outright).
  assert.ok(!result.stdout.toString().includes('allocated 400'), result.output);
});

test('a reservation past the memory limit that is never written is not refused (a JVM heap, V8, WebAssembly)', async () => {
  // 4 GiB of WebAssembly memory (and V8's own cage) is reserved PROT_NONE: RLIMIT_AS would refuse
  // it (Node would not even start under 256 MiB of address space); RLIMIT_DATA does not count it.
  const reserve =
    '/usr/bin/node -e \'const memory = new WebAssembly.Memory({ initial: 1, maximum: 65536 }); console.log("reserved", memory.buffer.byteLength)\'';
  const result = await sandboxed(reserve, false);
  assert.equal(result.exitCode, 0, result.output);
  assert.match(result.stdout.toString(), /^reserved 65536\n$/, result.output);
});

test('a file past the file size limit stops the command; its layer is discarded whole', async () => {
  const workspace = makeWorkspace('keel-confine-');
  const outcome = await runCommand(
    {
      command: 'echo small > small.txt; head -c 2000000 /dev/zero > big.bin; echo after',
      changesFiles: true,
    },
    mutating(workspace),
  );
  assert.equal(outcome.ok, false, outcome.content);
  assert.match(outcome.content, /after\n/, 'the script went on after head was stopped');
  assert.match(outcome.content, /file size limit of 1048576 bytes/);
  assert.match(outcome.content, /discarded whole, none applied/);
  assert.deepEqual(readdirSync(workspace), []);
});

test('a layer of more entries than allowed is discarded whole, never applied', async () => {
  const workspace = makeWorkspace('keel-confine-');
  const outcome = await runCommand(
    {
      command: 'mkdir many && for i in $(seq 80); do echo $i > many/$i; done; echo made',
      changesFiles: true,
    },
    mutating(workspace),
  );
  assert.equal(outcome.ok, false, outcome.content);
  assert.match(outcome.content, /made/);
  assert.match(outcome.content, /more than 50 files, directories or deletions/);
  assert.deepEqual(readdirSync(workspace), []);
});

test('a layer of more bytes than allowed is discarded whole; one within both limits is applied', async () => {
  const workspace = makeWorkspace('keel-confine-');
  const over = await runCommand(
    { command: 'for i in 1 2; do head -c 900000 /dev/zero > part$i.bin; done', changesFiles: true },
    mutating(workspace),
  );
  assert.equal(over.ok, false, over.content);
  assert.match(over.content, /more than 1536000 bytes/);
  assert.deepEqual(readdirSync(workspace), []);
  const within = await runCommand(
    { command: 'head -c 200000 /dev/zero > part.bin', changesFiles: true },
    mutating(workspace),
  );
  assert.equal(within.ok, true, within.content);
  assert.deepEqual(readdirSync(workspace), ['part.bin']);
});

test('more processes than the limit cannot start, root or not (a pids cgroup per call), and its cgroup is left empty', async () => {
  const status = sandboxStatus();
  assert.ok(
    status.mode === 'bubblewrap' && status.processCgroup !== undefined,
    'this host lets keel make pids cgroups',
  );
  const command =
    'for i in $(seq 120); do (echo x >> /tmp/started; sleep 2) & done 2>/dev/null; sleep 1; wc -l < /tmp/started';
  const straight = await sandboxed(command, false);
  assert.ok(Number(straight.stdout.toString().trim()) < 77, straight.output);
  const layered = await runCommand({ command, changesFiles: true }, mutating(makeWorkspace('keel-confine-')));
  // The shell may not even fork its last `wc` (exit 2, "Cannot fork"): either way, far fewer than 120.
  const started = Number(/--- stdout ---\n(\d+)/.exec(layered.content)?.[1] ?? 0);
  assert.ok(started < 77, layered.content);
  // Kept for the next call only once empty: nothing of either command lives on in them.
  const root = status.processCgroup;
  for (const name of readdirSync(root).filter((entry) => entry.startsWith('call-')))
    assert.equal(readFileSync(path.join(root, name, 'cgroup.procs'), 'utf8'), '', name);
});
