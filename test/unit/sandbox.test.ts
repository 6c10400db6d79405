import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { commandEnvironment } from '../../src/activities/tools/command-environment';
import { runCommand } from '../../src/activities/tools/run-command';
import { runSandboxedCommand, sandboxStatus } from '../../src/activities/tools/sandbox';
import { resetSandboxStatus } from '../../src/activities/tools/sandbox/sandbox-status';
import { makeWorkspace, toolContext, writeFiles } from './tools-test-helpers';

const CHILD_RUNNER = path.join(__dirname, 'sandbox-child-runner.ts');
const created: string[] = [];
after(() => {
  for (const entry of created) rmSync(entry, { recursive: true, force: true });
});

function workspace(): string {
  const directory = makeWorkspace('keel-sandbox-');
  created.push(directory);
  return directory;
}

const marker = (): string => `keel-marker-${randomBytes(12).toString('hex')}`;

async function sandboxed(command: string, directory: string, network = false) {
  const result = await runSandboxedCommand({
    command,
    workspace: directory,
    env: commandEnvironment({ idempotencyKey: 'sandbox-test/call' }),
    timeoutMs: 60_000,
    network,
  });
  return { ...result, output: `${result.stdout.toString()}\n${result.stderr.toString()}` };
}

/** Runs the command from a separate node process whose own environment holds the variables. */
async function inChildProcess(
  command: string,
  directory: string,
  env: NodeJS.ProcessEnv,
  mode: 'sandbox' | 'unconfined' = 'sandbox',
): Promise<{ sandbox: string; stdout: string; stderr: string }> {
  const { stdout } = await promisify(execFile)(
    process.execPath,
    ['--import', 'tsx', CHILD_RUNNER, command, directory, mode],
    { env, maxBuffer: 10_000_000 },
  );
  return JSON.parse(stdout) as { sandbox: string; stdout: string; stderr: string };
}

test('this host runs commands in bubblewrap (the tests below would prove nothing unconfined)', () => {
  assert.equal(sandboxStatus().mode, 'bubblewrap', JSON.stringify(sandboxStatus()));
});

test("/proc inside the sandbox does not reveal the worker's environment", async () => {
  const directory = workspace();
  const secret = marker();
  const saved = process.env.ANTHROPIC_API_KEY;
  process.env.ANTHROPIC_API_KEY = secret;
  try {
    const env = { ...process.env };
    // Control: unconfined, the parent's environ does hold the secret, so the check below is real.
    const unconfined = await inChildProcess('cat /proc/$PPID/environ', directory, env, 'unconfined');
    assert.ok(
      unconfined.stdout.includes(secret),
      `without the sandbox /proc/$PPID/environ leaks the key: ${unconfined.stdout.slice(0, 300)}`,
    );

    const command =
      'ls /proc; cat /proc/$PPID/environ; cat /proc/1/environ; cat /proc/*/environ; grep -ra ANTHROPIC /proc 2>/dev/null';
    const result = await inChildProcess(command, directory, env);
    assert.equal(result.sandbox, 'bubblewrap');
    assert.ok(!`${result.stdout}${result.stderr}`.includes(secret), 'the key leaked through /proc');
    assert.ok(
      !result.stdout.includes('ANTHROPIC_API_KEY='),
      'no ANTHROPIC_API_KEY variable is visible at all',
    );
    const pids = result.stdout.split('\n').filter((line) => /^\d+$/.test(line));
    assert.ok(
      pids.length > 0 && pids.length < 10,
      `/proc lists only the sandbox's processes: ${pids.join(' ')}`,
    );
  } finally {
    if (saved === undefined) delete process.env.ANTHROPIC_API_KEY;
    else process.env.ANTHROPIC_API_KEY = saved;
  }
});

test('a secret planted in /etc and one in HOME are invisible to cat, grep -r and find /', async () => {
  const directory = workspace();
  const secret = marker();
  const etcFile = `/etc/${marker()}`;
  const home = mkdtempSync(path.join(tmpdir(), 'keel-fake-home-'));
  created.push(home, etcFile);
  writeFileSync(etcFile, secret);
  mkdirSync(path.join(home, '.ssh'));
  writeFileSync(path.join(home, '.ssh', 'id_rsa'), secret);
  const savedHome = process.env.HOME;
  process.env.HOME = home;
  try {
    // Controls: both files really hold the secret on the host.
    assert.ok((await sandboxed('true', directory)).exitCode === 0);
    const result = await sandboxed(
      [
        `cat ${etcFile}`,
        `cat ${home}/.ssh/id_rsa`,
        'cat ~/.ssh/id_rsa',
        'cat $HOME/.ssh/id_rsa',
        `grep -r ${secret} /etc /tmp /root /home 2>/dev/null`,
        'echo done',
      ].join('; '),
      directory,
    );
    assert.match(result.output, /done/);
    assert.ok(!result.output.includes(secret), result.output);
    const listing = await sandboxed(
      `ls -a /etc; find / -name '${path.basename(etcFile)}' -o -name id_rsa 2>/dev/null`,
      directory,
    );
    assert.ok(
      !listing.output.includes(path.basename(etcFile)),
      'the planted /etc file is not listed or found',
    );
    assert.ok(!listing.output.includes('id_rsa'), 'find / does not find the key file');
    assert.match(listing.stdout.toString(), /\bpasswd\b/, '/etc keeps what programs need');
  } finally {
    if (savedHome === undefined) delete process.env.HOME;
    else process.env.HOME = savedHome;
  }
});

test("no network unless allowed; allowed, a network of its own that still cannot reach the host's loopback", async () => {
  assert.ok(existsSync('/usr/bin/curl'), 'these checks use curl (Debian package curl)');
  const server = createServer((_request, response) => response.end('keel-network-ok'));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    const directory = workspace();
    const off = await sandboxed(`curl -sS -m 3 ${url}`, directory);
    assert.notEqual(off.exitCode, 0);
    assert.ok(!off.output.includes('keel-network-ok'));
    const noRoute = await sandboxed('ip route', directory);
    assert.equal(noRoute.stdout.toString(), '', 'without network: no route out at all');
    // With network: a route out, yet the host's loopback (Temporal, the Web UI) stays out of reach.
    const on = await sandboxed(
      `ip route | grep -q ^default && echo routed; curl -sS -m 3 ${url}`,
      directory,
      true,
    );
    assert.notEqual(on.exitCode, 0);
    assert.equal(on.stdout.toString(), 'routed\n', on.output);
    assert.ok(!on.output.includes('keel-network-ok'));
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});

test('ordinary workspace commands still work, and their files land in the workspace', async () => {
  const directory = workspace();
  writeFiles(directory, { 'src/app.ts': 'export const answer = 42;\n' });
  const result = await sandboxed('echo hello > made.txt; ls; cat made.txt src/app.ts; pwd', directory);
  assert.equal(result.exitCode, 0, result.output);
  assert.match(result.stdout.toString(), /made\.txt\nsrc\nhello\nexport const answer = 42;\n/);
  assert.match(result.stdout.toString(), new RegExp(`${directory}\\n$`));
  assert.ok(existsSync(path.join(directory, 'made.txt')));
});

test('SIGKILL of the process running a command kills everything it started', async () => {
  for (const mode of ['sandbox', 'unconfined'] as const) {
    const directory = workspace();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', CHILD_RUNNER, 'echo start > started; sleep 3; echo end > marker', directory, mode],
      { stdio: 'ignore' },
    );
    const deadline = Date.now() + 20_000;
    while (!existsSync(path.join(directory, 'started')) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    assert.ok(existsSync(path.join(directory, 'started')), `${mode}: the command started`);
    child.kill('SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 4000));
    assert.equal(
      existsSync(path.join(directory, 'marker')),
      false,
      `${mode}: the command ran on after SIGKILL`,
    );
  }
});

test('unconfined (KEEL_SANDBOX=off), no command runs without a human: there is no kernel to hold it to a tier', async () => {
  const saved = process.env.KEEL_SANDBOX;
  process.env.KEEL_SANDBOX = 'off';
  resetSandboxStatus();
  try {
    assert.equal(sandboxStatus().mode, 'unconfined');
    const parent = mkdtempSync(path.join(tmpdir(), 'keel-fallback-'));
    created.push(parent);
    const directory = path.join(parent, 'workspace');
    writeFiles(parent, { outside: 'outside secret', 'workspace/inside.txt': 'inside text' });
    for (const reversibility of ['read-only', 'mutating'] as const) {
      for (const command of ['cat ../outside', 'cat inside.txt', 'echo x > made.txt']) {
        const refused = await runCommand(
          { command },
          toolContext(directory, { reversibility, approved: false }),
        );
        assert.equal(refused.ok, false, command);
        assert.match(refused.content, /^Not run: this worker has no sandbox \(KEEL_SANDBOX=off\)/, command);
        assert.match(refused.escalation?.reason ?? '', /no sandbox/, command);
        assert.ok(!refused.content.includes('outside secret'));
      }
    }
    assert.equal(existsSync(path.join(directory, 'made.txt')), false, 'nothing ran');
    // An approved call was seen by a human and runs as approved.
    const approved = await runCommand(
      { command: 'cat ../outside' },
      toolContext(directory, { reversibility: 'irreversible' }),
    );
    assert.match(approved.content, /outside secret/);
  } finally {
    if (saved === undefined) delete process.env.KEEL_SANDBOX;
    else process.env.KEEL_SANDBOX = saved;
    resetSandboxStatus();
  }
});
