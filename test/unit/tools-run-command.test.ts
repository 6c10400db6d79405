import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { runCommand } from '../../src/activities/tools/run-command';
import { makeWorkspace, toolContext, writeFiles } from './tools-test-helpers';

test('a successful command reports exit code 0 and its output', async () => {
  const workspace = makeWorkspace();
  const outcome = await runCommand({ command: 'echo hello; echo warning >&2' }, toolContext(workspace));
  assert.equal(outcome.ok, true);
  assert.match(
    outcome.content,
    /^Exit code 0 after [\d.]+ s\.\n--- stdout ---\nhello\n--- stderr ---\nwarning$/,
  );
  assert.equal(outcome.facts.exitCode, 0);
  assert.equal(outcome.facts.emptyOutput, false);
  assert.equal(outcome.facts.truncated, false);
  const silent = await runCommand({ command: 'true' }, toolContext(workspace));
  assert.equal(silent.facts.emptyOutput, true);
  assert.match(silent.content, /\(no output\)/);
});

test('a non-zero exit shows the first 10 lines of stderr first and suggests a verbose re-run', async () => {
  const workspace = makeWorkspace();
  const command = 'echo partial; i=1; while [ $i -le 15 ]; do echo "err $i" >&2; i=$((i+1)); done; exit 3';
  const outcome = await runCommand({ command }, toolContext(workspace));
  assert.equal(outcome.ok, false);
  assert.equal(outcome.facts.exitCode, 3);
  const lines = outcome.content.split('\n');
  assert.match(lines[0] ?? '', /^Exit code 3 after/);
  assert.equal(lines[1], '--- stderr (first 10 lines) ---');
  assert.deepEqual(
    lines.slice(2, 12),
    Array.from({ length: 10 }, (_, index) => `err ${index + 1}`),
  );
  assert.equal(lines[12], '--- stdout ---');
  assert.match(outcome.content, /--- stderr \(continued\) ---\nerr 11\n/);
  assert.ok(outcome.candidates.length >= 2 && outcome.candidates.length <= 3);
  assert.match(outcome.candidates[0] ?? '', /verbose/);
});

test('a failing simple command gets a concrete --verbose re-run; a missing program gets `which`', async () => {
  const workspace = makeWorkspace();
  const missing = await runCommand({ command: 'keel-no-such-program --flag' }, toolContext(workspace));
  assert.equal(missing.facts.exitCode, 127);
  assert.match(missing.candidates[0] ?? '', /"command":"keel-no-such-program --flag --verbose"/);
  assert.match(missing.candidates[1] ?? '', /"command":"which keel-no-such-program"/);
});

test('a file:line reference in the output becomes a read_file candidate', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'src/app.ts': 'a\nb\nc\n' });
  const outcome = await runCommand(
    { command: 'echo "src/app.ts:25: something broke" >&2; exit 1' },
    toolContext(workspace),
  );
  assert.match(outcome.candidates.join('\n'), /read_file \{"path":"src\/app\.ts","offset":15,"limit":30\}/);
});

/** A background job that writes late.txt after 2 s, unless it was killed first. */
const LATE_WRITER = "sh -c 'sleep 2; echo late > late.txt' &";

// Process ids inside the sandbox belong to its own pid namespace, so these tests watch for an
// effect (a file written late) rather than for a pid.
test('a timeout kills the whole process group', async () => {
  const workspace = makeWorkspace();
  const started = Date.now();
  const outcome = await runCommand(
    { command: `${LATE_WRITER} sleep 30`, timeoutSeconds: 1 },
    toolContext(workspace),
  );
  assert.ok(Date.now() - started < 10_000, 'returned long before the sleeps would end');
  assert.equal(outcome.ok, false);
  assert.match(outcome.content, /^Timed out after 1 s/);
  assert.equal(outcome.facts.exitCode, undefined);
  assert.match(outcome.candidates[0] ?? '', /"timeoutSeconds":4/);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.equal(existsSync(path.join(workspace, 'late.txt')), false, 'the background job was killed too');
});

test('background jobs left behind by a finished command are killed instead of holding it open', async () => {
  const workspace = makeWorkspace();
  const started = Date.now();
  const outcome = await runCommand({ command: LATE_WRITER }, toolContext(workspace));
  assert.ok(Date.now() - started < 10_000);
  assert.equal(outcome.facts.exitCode, 0);
  await new Promise((resolve) => setTimeout(resolve, 3000));
  assert.equal(existsSync(path.join(workspace, 'late.txt')), false, 'the background job was killed');
});

test('cancellation through the signal kills the command', async () => {
  const workspace = makeWorkspace();
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 200);
  const started = Date.now();
  const outcome = await runCommand(
    { command: 'sleep 30' },
    toolContext(workspace, { signal: controller.signal }),
  );
  assert.ok(Date.now() - started < 10_000);
  assert.equal(outcome.ok, false);
  assert.match(outcome.content, /^Cancelled/);
});

test('heartbeats are sent while the command runs', async () => {
  const workspace = makeWorkspace();
  let beats = 0;
  await runCommand(
    { command: 'sleep 0.5' },
    toolContext(workspace, { heartbeat: () => (beats += 1), heartbeatIntervalMilliseconds: 50 }),
  );
  assert.ok(beats >= 4, `got ${beats} heartbeats`);
});

test('output is capped keeping head and tail', async () => {
  const workspace = makeWorkspace();
  const outcome = await runCommand(
    {
      command:
        'echo FIRST; i=0; while [ $i -lt 5000 ]; do echo "line $i of filler text"; i=$((i+1)); done; echo LAST',
    },
    toolContext(workspace),
  );
  assert.equal(outcome.facts.truncated, true);
  assert.ok(outcome.content.length < 21_000, `content is ${outcome.content.length} chars`);
  assert.match(outcome.content, /--- stdout ---\nFIRST\n/);
  assert.match(outcome.content, /\nLAST$/);
  assert.match(outcome.content, /\[… \d+ chars omitted …\]/);
  assert.ok((outcome.facts.bytes ?? 0) > 100_000);
});

test('the command sees no secrets, only allowlisted variables and KEEL_IDEMPOTENCY_KEY', async () => {
  const workspace = makeWorkspace();
  process.env.ANTHROPIC_API_KEY = 'sk-ant-fake-key-for-test';
  process.env.KEEL_TEST_DATABASE_PASSWORD = 'hunter2';
  try {
    const outcome = await runCommand(
      { command: 'env' },
      toolContext(workspace, { idempotencyKey: 'goal-7/call-3' }),
    );
    assert.equal(outcome.ok, true);
    assert.doesNotMatch(outcome.content, /ANTHROPIC|sk-ant-fake|hunter2|PASSWORD/);
    assert.match(outcome.content, /^KEEL_IDEMPOTENCY_KEY=goal-7\/call-3$/m);
    assert.match(outcome.content, /^PATH=/m);
  } finally {
    delete process.env.ANTHROPIC_API_KEY;
    delete process.env.KEEL_TEST_DATABASE_PASSWORD;
  }
});

const CHANGE_FILES = 'echo new > c.txt; echo changed > a.txt; rm b.txt; mkdir -p d && echo x > d/e.txt';

test('effects in a plain directory: created, modified, deleted', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'a.txt': 'a', 'b.txt': 'b', 'same.txt': 's', 'node_modules/x/index.js': 'x' });
  const outcome = await runCommand(
    {
      command: `${CHANGE_FILES}; echo y > node_modules/x/index.js; echo s > same.txt.tmp; mv same.txt.tmp same.txt`,
    },
    toolContext(workspace),
  );
  assert.equal(outcome.ok, true, outcome.content);
  // same.txt was rewritten with different bytes ("s\n" vs "s"), so it counts as modified;
  // node_modules is counted, not listed.
  assert.deepEqual(outcome.effects, {
    created: ['c.txt', 'd/e.txt'],
    modified: ['a.txt', 'same.txt'],
    deleted: ['b.txt'],
    collapsed: { 'node_modules/': 1 },
  });
});

function git(workspace: string, ...args: string[]): void {
  execFileSync('git', args, { cwd: workspace, stdio: 'ignore' });
}

function gitWorkspace(): string {
  const workspace = makeWorkspace('keel-git-');
  git(workspace, 'init', '-q');
  git(workspace, 'config', 'user.email', 'test@example.com');
  git(workspace, 'config', 'user.name', 'Test');
  writeFiles(workspace, { 'a.txt': 'a', 'b.txt': 'b', 'dirty.txt': 'committed' });
  git(workspace, 'add', '-A');
  git(workspace, 'commit', '-qm', 'initial');
  writeFiles(workspace, { 'dirty.txt': 'dirty before the command', 'untracked.txt': 'u' });
  return workspace;
}

test('effects in a git work tree, including files that were already dirty or untracked', async () => {
  const workspace = gitWorkspace();
  const outcome = await runCommand(
    { command: `${CHANGE_FILES}; echo more >> untracked.txt` },
    toolContext(workspace),
  );
  assert.equal(outcome.ok, true, outcome.content);
  assert.deepEqual(outcome.effects, {
    created: ['c.txt', 'd/e.txt'],
    modified: ['a.txt', 'untracked.txt'],
    deleted: ['b.txt'],
  });
});

test('committing files in a git work tree is not mistaken for deleting them', async () => {
  const workspace = gitWorkspace();
  const outcome = await runCommand(
    { command: 'git add -A && git commit -qm more && rm a.txt' },
    toolContext(workspace),
  );
  assert.equal(outcome.ok, true, outcome.content);
  const { collapsed, ...listed } = outcome.effects ?? { created: [], modified: [], deleted: [] };
  assert.deepEqual(listed, { created: [], modified: [], deleted: ['a.txt'] });
  assert.ok(
    (collapsed?.['.git/'] ?? 0) > 3,
    'the commit wrote objects, refs and the index, counted under .git/',
  );
});
