import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { freePort, startDevServer, type DevServer } from '../../src/dev-server/dev-server';
import { KEEL_SEARCH_ATTRIBUTES } from '../../src/dev-server/search-attributes';
import { launchChromium } from '../support/browser';
import { tempDirectory } from '../support/temporal';
import { currentDetailsFrame, UI_TIMEOUT_MS } from '../support/web-ui-signal';
import { connectTemporal } from '../../src/client/temporal-connection';

/**
 * `npm run demo`'s program, run the way CI runs it (no TTY, no ANTHROPIC_API_KEY), against the
 * server TEMPORAL_ADDRESS names. Issue 13: against a plain `temporal server start-dev` it hung at
 * "thinking" on BadSearchAttributes, and after stopping its own server it printed a dead link.
 * And once in a terminal (a pseudo-terminal from util-linux `script`), as a newcomer runs it.
 */

const ROOT = path.resolve(__dirname, '../..');
const cleanups: Array<() => Promise<void> | void> = [];
after(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

/** The demo worker's registry of running goals' workspaces: the test's folder, not /tmp's for good. */
function stateDirectory(): { KEEL_STATE_DIRECTORY?: string } {
  const directory = process.env.KEEL_STATE_DIRECTORY;
  return directory === undefined ? {} : { KEEL_STATE_DIRECTORY: directory };
}

function runDemo(env: Record<string, string>): Promise<{ code: number; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/demo/run-demo.ts')], {
      cwd: ROOT,
      // No ANTHROPIC_API_KEY (scripted model), no KEEL_WEB_UI_URL, no TTY.
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        CI: '1',
        KEEL_SANDBOX: 'off',
        ...stateDirectory(),
        ...env,
      },
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
  const connection = await connectTemporal({ address });
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
    // The approval inbox, with a sign-in link of this run's own (src/demo/demo-inbox.ts).
    assert.match(output, /inbox: http:\/\/127\.0\.0\.1:\d+\/login#token=keel-inbox-\S+ /);
    assert.match(output, /goal completed/);
    // The scripted model delegates reading the notes to a read-only child goal (issue 47).
    assert.match(
      output,
      /\[tool_result\] Child goal goal-\S+-delegate-1 completed\. Its answer: The open TODOs in notes\.md: - Write the release notes/,
    );
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
      connectTemporal({ address: `127.0.0.1:${port}`, connectTimeout: 1000 }).then((connection) =>
        connection.workflowService.getSystemInfo({}).finally(() => connection.close()),
      ),
      'the server is really gone',
    );
  },
);

/** Every process whose parent chain leads to `root` (Linux: read from /proc). */
function descendants(root: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so split after the last ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone while listing
    }
  }
  const found: number[] = [];
  const walk = (pid: number) => {
    for (const [child, parent] of parents) {
      if (parent !== pid) continue;
      found.push(child);
      walk(child);
    }
  };
  walk(root);
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const shellQuote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

/** The demo on a pseudo-terminal: stdin and stdout are TTYs, so it asks and lingers as in a terminal. */
function startDemoInTerminal(env: Record<string, string>): {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  waitFor: (pattern: RegExp) => Promise<RegExpMatchArray>;
  exited: Promise<number>;
} {
  // exec: the shell that script starts becomes the demo, so script's child is the demo itself.
  const command = `exec ${[process.execPath, '--import', 'tsx', path.join(ROOT, 'src/demo/run-demo.ts')]
    .map(shellQuote)
    .join(' ')}`;
  // -e: script exits with the demo's code; -f: output as it comes; the typescript file is discarded.
  const child = spawn('script', ['-qefc', command, '/dev/null'], {
    cwd: ROOT,
    // No CI, no ANTHROPIC_API_KEY (scripted model), no KEEL_WEB_UI_URL.
    env: { PATH: process.env.PATH, HOME: process.env.HOME, KEEL_SANDBOX: 'off', ...stateDirectory(), ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  const waiters = new Set<() => void>();
  const append = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of waiters) check();
  };
  child.stdout.on('data', append);
  child.stderr.on('data', append);
  const exited = new Promise<number>((resolve) =>
    child.once('exit', (code) => {
      resolve(code ?? 1);
      for (const check of waiters) check();
    }),
  );
  const waitFor = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const timer = setTimeout(() => fail(`no ${pattern} within 120 s`), 120_000);
      const settle = () => {
        clearTimeout(timer);
        waiters.delete(check);
      };
      const fail = (why: string) => {
        settle();
        reject(new Error(`${why}:\n${output}`));
      };
      const check = () => {
        const match = output.match(pattern);
        if (match) {
          settle();
          resolve(match);
        } else if (child.exitCode !== null || child.signalCode !== null)
          fail(`the demo ended before ${pattern}`);
      };
      waiters.add(check);
      check();
    });
  return { child, output: () => output, waitFor, exited };
}

test(
  "in a terminal the demo's worker keeps serving while its dev server is up: the printed link shows the goal and its current details",
  { timeout: 180_000 },
  async () => {
    // First, so a missing browser fails at once with its one-line fix.
    const browser = await launchChromium();
    cleanups.push(() => browser.close());
    let port = await freePort();
    while (port + 1000 > 65_535) port = await freePort(); // the UI goes on port + 1000
    const demoDirectory = tempDirectory('keel-demo-');
    cleanups.push(() => rmSync(demoDirectory, { recursive: true, force: true }));
    const demo = startDemoInTerminal({ TEMPORAL_ADDRESS: `127.0.0.1:${port}`, KEEL_DEMO_DIR: demoDirectory });
    const started: number[] = [];
    cleanups.push(() => {
      // Whatever failed: end what this test started, by pid, the demo's children first.
      for (const pid of [...started.reverse(), demo.child.pid ?? 0])
        if (pid && alive(pid)) process.kill(pid, 'SIGKILL');
    });

    await demo.waitFor(/approve it here\? \[y\/N\]/);
    demo.child.stdin.write('y\r');
    await demo.waitFor(/press Ctrl-C to stop them/);
    const output = demo.output();
    assert.match(
      output,
      /model: SCRIPTED — replaying scenarios\/demo\.yaml, its child goal scenarios\/demo-child\.yaml \(no LLM is called/,
    );
    assert.match(output, /goal completed/);
    const links = [...output.matchAll(/web ui: (\S+)/g)].map((match) => match[1]);
    const link = links.at(-1) ?? assert.fail(`no web ui link:\n${output}`);
    assert.match(link, new RegExp(`^http://localhost:${port + 1000}/namespaces/default/workflows/goal-`));
    started.push(...descendants(demo.child.pid ?? 0));

    const page = await browser.newPage({ viewport: { width: 1400, height: 1800 } });
    try {
      await page.goto(link);
      // Summary and current details live on the "User Metadata" tab of the workflow page.
      await page.getByRole('tab', { name: 'User Metadata' }).click({ timeout: UI_TIMEOUT_MS });
      await page
        .frameLocator('iframe#user-metadata-summary')
        .getByText(
          /^\[SCRIPTED model, scenarios\/demo\.yaml\] Tidy the demo project: summarise its open TODO/,
        )
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
      // The details come from a query: only a worker polling the demo's queue answers it.
      await currentDetailsFrame(page)
        .getByText(/^Goal completed/)
        .waitFor({ state: 'visible', timeout: UI_TIMEOUT_MS });
    } finally {
      const artifacts = path.join(ROOT, 'test-artifacts');
      mkdirSync(artifacts, { recursive: true });
      await page.screenshot({ path: path.join(artifacts, 'demo-web-ui.png'), fullPage: true });
      await page.close();
    }

    // SIGTERM to the demo alone (a terminal's Ctrl-C also reaches its server): it must stop both.
    const demoPid = started[0] ?? assert.fail('no demo process under script');
    assert.ok(started.length >= 2, `the demo and its dev server under script: ${started.join(', ')}`);
    process.kill(demoPid, 'SIGTERM');
    assert.equal(await demo.exited, 0, demo.output());
    assert.match(demo.output(), /stopping \(SIGTERM\): the worker, then the dev server/);
    assert.match(demo.output(), /temporal: the dev server has stopped/);
    assert.deepEqual(started.filter(alive), [], 'the demo, its dev server and their children are gone');
  },
);
