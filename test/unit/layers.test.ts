import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  chmodSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { runCommand } from '../../src/activities/tools/run-command';
import { sandboxStatus } from '../../src/activities/tools/sandbox/sandbox-status';
import {
  applyHeldLayer,
  discardHeldLayer,
  privilegeNote,
  runLayeredCommand,
} from '../../src/activities/tools/layers/layered-command';
import { CallLayer } from '../../src/activities/tools/layers/layer-record';
import type { ToolContext } from '../../src/activities/tools/tool-context';
import { makeWorkspace, toolContext, writeFiles } from './tools-test-helpers';

/** A mutating call no human approved, as the workflow sends it under the default policy. */
function unapproved(workspace: string, overrides: Partial<ToolContext> = {}): ToolContext {
  return toolContext(workspace, { reversibility: 'mutating', approved: false, ...overrides });
}

function tree(workspace: string): Record<string, string> {
  const entries: Record<string, string> = {};
  const walk = (relative: string): void => {
    for (const name of readdirSync(path.join(workspace, relative)).sort()) {
      const child = relative === '' ? name : `${relative}/${name}`;
      const info = lstatSync(path.join(workspace, child));
      if (info.isDirectory()) {
        entries[`${child}/`] = (info.mode & 0o777).toString(8);
        walk(child);
      } else if (info.isSymbolicLink()) entries[child] = `-> ${readlinkSync(path.join(workspace, child))}`;
      else entries[child] = readFileSync(path.join(workspace, child), 'utf8');
    }
  };
  walk('');
  return entries;
}

test('this host mounts copy-on-write layers (the tests below would prove nothing without them)', () => {
  const status = sandboxStatus();
  assert.equal(status.mode, 'bubblewrap');
  assert.ok(status.mode === 'bubblewrap' && status.layers.available, JSON.stringify(status));
});

test("a mutating call's effects come from its layer, exactly, and reach the workspace", async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'a.txt': 'a\n', 'same.txt': 's\n', 'keep/x.txt': 'x', 'mode.sh': 'echo' });
  const outcome = await runCommand(
    {
      command: [
        'echo more >> a.txt',
        'echo new > b.txt',
        'mkdir -p deep/er && echo z > deep/er/z.txt',
        'cp same.txt same.tmp && mv same.tmp same.txt', // rewritten with the same bytes: no change
        'chmod +x mode.sh',
        'ln -s a.txt link',
        'echo y > keep/y.txt',
      ].join(' && '),
    },
    unapproved(workspace),
  );
  assert.equal(outcome.ok, true, outcome.content);
  assert.equal(outcome.escalation, undefined);
  assert.deepEqual(outcome.effects, {
    created: ['b.txt', 'deep/er/z.txt', 'keep/y.txt', 'link'],
    modified: ['a.txt', 'mode.sh'],
    deleted: [],
  });
  assert.deepEqual(tree(workspace), {
    'a.txt': 'a\nmore\n',
    'b.txt': 'new\n',
    'deep/': '755',
    'deep/er/': '755',
    'deep/er/z.txt': 'z\n',
    'keep/': '755',
    'keep/x.txt': 'x',
    'keep/y.txt': 'y\n',
    link: '-> a.txt',
    'mode.sh': 'echo',
    'same.txt': 's\n',
  });
  assert.equal(lstatSync(path.join(workspace, 'mode.sh')).mode & 0o111, 0o111);
  assert.equal(existsSync(path.join(path.dirname(workspace), '.keel-state/workspace/layers')), true);
  const layerDirectories = readdirSync(path.join(path.dirname(workspace), '.keel-state/workspace/layers'));
  for (const name of layerDirectories) {
    assert.deepEqual(
      readdirSync(path.join(path.dirname(workspace), '.keel-state/workspace/layers', name)),
      ['record.json'],
      'an applied layer keeps only its record',
    );
  }
});

test('chmod 4755 on a layer: the helper arrives without its setuid bit, and the result says so', async () => {
  const workspace = makeWorkspace();
  const outcome = await runCommand(
    { command: 'printf "#!/bin/sh\\n" > helper && chmod 4755 helper' },
    unapproved(workspace),
  );
  assert.equal(outcome.ok, true, outcome.content);
  assert.equal(lstatSync(path.join(workspace, 'helper')).mode & 0o7777, 0o755);
  assert.match(
    outcome.content,
    /A call grants no privileges, so keel took them off what it changed: setuid bit removed from helper\./,
  );
});

test('privilege notes: none add nothing; past ten the rest are counted', () => {
  assert.equal(privilegeNote([]), '');
  const notes = Array.from({ length: 12 }, (_, index) => `setuid bit removed from f${index}`);
  const note = privilegeNote(notes);
  assert.match(note, /: setuid bit removed from f0; .*setuid bit removed from f9; and 2 more\.$/);
  assert.doesNotMatch(note, /f10/);
  assert.equal(
    privilegeNote(notes.slice(0, 10)),
    `A call grants no privileges, so keel took them off what it changed: ${notes.slice(0, 10).join('; ')}.`,
  );
});

test('a deletion no human approved is held: nothing reaches the workspace until approval, then exactly it', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'src/a.ts': 'a', 'src/b.ts': 'b', 'build/out.js': 'o', 'notes.txt': 'n' });
  const before = tree(workspace);
  const context = unapproved(workspace);
  const held = await runCommand(
    // A deleted and remade directory is opaque in overlayfs: its old files must show as deleted.
    {
      command: 'rm -rf build && mkdir build && echo new > build/new.js && rm notes.txt && echo c > src/c.ts',
    },
    context,
  );
  assert.equal(held.ok, false);
  assert.match(held.content, /Its changes are held, not applied/);
  assert.match(held.content, /deletes build\/out\.js, which existed before the call/);
  assert.match(held.content, /deletes notes\.txt/);
  assert.equal(
    held.escalation?.reason,
    'its changes go beyond a mutating call: deletes build/out.js, which existed before the call; deletes notes.txt, which existed before the call',
    'one line for the approval request: every path is listed beside it',
  );
  assert.deepEqual(held.escalation?.held?.changes, {
    created: ['build/new.js', 'src/c.ts'],
    modified: [],
    deleted: ['build/out.js', 'notes.txt'],
  });
  assert.deepEqual(tree(workspace), before, 'nothing applied while held');
  // A retried attempt of the same call answers the same, without running it again.
  const again = await runCommand({ command: 'echo ran > ran-again.txt' }, context);
  assert.deepEqual(again.escalation, held.escalation);
  assert.equal(existsSync(path.join(workspace, 'ran-again.txt')), false);

  const applied = await applyHeldLayer({ workspace, callKey: context.callKey ?? '' });
  assert.equal(applied.ok, true, applied.content);
  assert.deepEqual(tree(workspace), {
    'build/': '755',
    'build/new.js': 'new\n',
    'src/': '755',
    'src/a.ts': 'a',
    'src/b.ts': 'b',
    'src/c.ts': 'c\n',
  });
});

test('a denied layer is discarded; approving it later applies nothing', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'a.txt': 'a' });
  const context = unapproved(workspace);
  const held = await runCommand({ command: 'rm a.txt && echo b > b.txt' }, context);
  assert.ok(held.escalation?.held);
  await discardHeldLayer({ workspace, callKey: context.callKey ?? '' });
  const late = await applyHeldLayer({ workspace, callKey: context.callKey ?? '' });
  assert.match(late.content, /Not run again/);
  assert.deepEqual(tree(workspace), { 'a.txt': 'a' });
});

test("writing git's configuration or hooks is held, and no FIFO or device ever reaches the workspace", async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { '.git/config': '[core]\n', '.git/HEAD': 'ref: refs/heads/main\n' });
  const config = await runCommand(
    { command: 'printf "[core]\\n\\tfsmonitor = sh hook.sh\\n" > .git/config && echo x > .git/index' },
    unapproved(workspace),
  );
  assert.match(config.escalation?.reason ?? '', /\.git\/config is part of git's configuration/);
  assert.equal(readFileSync(path.join(workspace, '.git/config'), 'utf8'), '[core]\n');
  const hook = await runCommand(
    { command: 'mkdir -p .git/hooks && echo "touch /tmp/x" > .git/hooks/pre-commit' },
    unapproved(workspace),
  );
  assert.match(hook.escalation?.reason ?? '', /\.git\/hooks\/pre-commit/);
  const dotGitFile = await runCommand(
    { command: 'mkdir sub && echo "gitdir: /etc" > sub/.git' },
    unapproved(workspace),
  );
  assert.match(dotGitFile.escalation?.reason ?? '', /sub\/\.git would no longer be git's own directory/);
  // Even approved, a FIFO stays out (a reader of the workspace would block on it).
  const fifo = await runCommand(
    { command: 'mkfifo pipe && mkdir d && mkfifo d/p && echo ok > ok.txt' },
    toolContext(workspace),
  );
  assert.equal(fifo.ok, true, fifo.content);
  assert.equal(existsSync(path.join(workspace, 'pipe')), false);
  assert.equal(existsSync(path.join(workspace, 'd/p')), false);
  assert.equal(readFileSync(path.join(workspace, 'ok.txt'), 'utf8'), 'ok\n');
});

test('a timed-out command leaves nothing behind in the workspace', async () => {
  const workspace = makeWorkspace();
  const outcome = await runCommand(
    { command: 'echo half > half.txt; sleep 30', timeoutSeconds: 1 },
    unapproved(workspace),
  );
  assert.match(outcome.content, /Timed out after 1 s/);
  assert.match(outcome.content, /Its changes were discarded/);
  assert.deepEqual(readdirSync(workspace), []);
});

test('a held layer whose files changed meanwhile is not applied over them', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'a.txt': 'a', 'b.txt': 'b' });
  const context = unapproved(workspace);
  const held = await runCommand({ command: 'rm a.txt && echo B > b.txt' }, context);
  assert.ok(held.escalation?.held);
  writeFileSync(path.join(workspace, 'b.txt'), 'someone else wrote this');
  const applied = await applyHeldLayer({ workspace, callKey: context.callKey ?? '' });
  assert.equal(applied.ok, false);
  assert.match(applied.content, /Its changes were not applied: b\.txt changed in the workspace meanwhile/);
  assert.deepEqual(tree(workspace), { 'a.txt': 'a', 'b.txt': 'someone else wrote this' });
});

test('applying never follows a link planted where a directory was: the layer is refused instead', async () => {
  const workspace = makeWorkspace();
  const outside = makeWorkspace('keel-outside-');
  writeFiles(workspace, { 'dir/keep.txt': 'k', 'dir/gone.txt': 'g' });
  const context = unapproved(workspace);
  const held = await runCommand({ command: 'rm dir/gone.txt && echo new > dir/new.txt' }, context);
  assert.ok(held.escalation?.held);
  rmSync(path.join(workspace, 'dir'), { recursive: true });
  symlinkSync(outside, path.join(workspace, 'dir'));
  const applied = await applyHeldLayer({ workspace, callKey: context.callKey ?? '' });
  assert.equal(applied.ok, false);
  assert.deepEqual(readdirSync(outside), [], 'nothing written through the link');
});

test('an apply cut off midway is finished by the next attempt, not run again', async () => {
  const workspace = makeWorkspace();
  writeFiles(workspace, { 'a.txt': 'a' });
  const context = unapproved(workspace);
  const held = await runCommand({ command: 'rm a.txt && echo b > b.txt && echo c > c.txt' }, context);
  assert.ok(held.escalation?.held);
  const layer = new CallLayer(workspace, context.callKey ?? '');
  const record = await layer.read();
  assert.ok(record);
  assert.equal(record.state, 'held');
  // As if the worker died after marking the apply begun and moving one file.
  await layer.write({ ...record, state: 'applying' });
  const [first] = record.operations.filter((operation) => operation.op === 'move');
  assert.ok(first);
  writeFileSync(
    path.join(workspace, first.path),
    readFileSync(path.join(layer.directories.upper, first.path)),
  );
  rmSync(path.join(layer.directories.upper, first.path));
  const resumed = await runCommand({ command: 'echo must-not-run > x.txt' }, context);
  assert.match(resumed.content, /Not run again/);
  assert.deepEqual(tree(workspace), { 'b.txt': 'b\n', 'c.txt': 'c\n' });
});

test('a directory the command made unreadable is still taken stock of and applied with its mode', async () => {
  const workspace = makeWorkspace();
  const outcome = await runCommand(
    { command: 'mkdir -p locked/in && echo s > locked/in/s.txt && chmod 000 locked/in' },
    unapproved(workspace),
  );
  assert.equal(outcome.ok, true, outcome.content);
  assert.deepEqual(outcome.effects?.created, ['locked/in/s.txt']);
  assert.equal(lstatSync(path.join(workspace, 'locked/in')).mode & 0o777, 0);
  chmodSync(path.join(workspace, 'locked/in'), 0o755);
  assert.equal(readFileSync(path.join(workspace, 'locked/in/s.txt'), 'utf8'), 's\n');
});

test('a layer that cannot be mounted runs nothing and leaves no record: a later attempt of the call starts over', async () => {
  const workspace = makeWorkspace();
  const status = sandboxStatus();
  assert.ok(status.mode === 'bubblewrap' && status.layers.available);
  const attempt = (unshare: string) =>
    runLayeredCommand({
      command: 'echo ran > ran.txt',
      workspace,
      callKey: 'goal/run/call-1',
      approved: false,
      bwrap: status.executable,
      unshare,
      env: { PATH: '/usr/bin:/bin' },
      network: false,
      timeoutMilliseconds: 30_000,
      outputLimitPerStream: 10_000,
      signal: new AbortController().signal,
      heartbeat: () => undefined,
      heartbeatIntervalMilliseconds: 5_000,
      outcomeOf: (result, effects) =>
        Promise.resolve({
          ok: result.exitCode === 0,
          content: 'ran',
          candidates: [],
          facts: {},
          ...(effects ? { effects } : {}),
        }),
    });
  // unshare that fails at once stands for a host where overlayfs cannot be mounted.
  const failed = await attempt('/bin/false');
  assert.equal(failed.kind, 'no-layer');
  assert.equal(existsSync(path.join(workspace, 'ran.txt')), false);
  const again = await attempt(status.layers.unshare);
  assert.equal(again.kind, 'outcome');
  assert.ok(again.kind === 'outcome' && again.outcome.ok, JSON.stringify(again));
  assert.equal(readFileSync(path.join(workspace, 'ran.txt'), 'utf8'), 'ran\n');
});
