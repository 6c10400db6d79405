import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { effectOf, loadTrajectories, replayTrajectory } from '../../scripts/discipline/trajectory-replay';

const step = (tool: string, raw: string, observation: string, ok = true) => ({
  thought: 'thinking',
  tool,
  input: { raw, ...(tool === 'run_command' ? {} : { path: raw.split(' ').pop() }) },
  observation_excerpt: observation,
  observation_ok: ok,
});

function folder(files: Record<string, unknown>, index?: string): string {
  const directory = mkdtempSync(path.join(tmpdir(), 'keel-trajectories-'));
  for (const [name, content] of Object.entries(files))
    writeFileSync(path.join(directory, name), JSON.stringify(content));
  if (index) writeFileSync(path.join(directory, 'INDEX.md'), index);
  return directory;
}

test('a looping recorded run is warned and stopped; a careful one is left alone; groups come from INDEX.md', (t) => {
  const looping = {
    source: 'x',
    model: 'm',
    outcome: 'cost_limit',
    steps: [
      step('read_file', 'open src/a.py', 'contents of a'),
      ...Array.from({ length: 8 }, () =>
        step('run_command', 'python reproduce.py', 'Traceback: KeyError', false),
      ),
      step('submit', 'submit', ''),
    ],
  };
  const careful = {
    source: 'y',
    model: null,
    outcome: 'resolved',
    steps: [
      ...Array.from({ length: 25 }, (_, index) =>
        step('read_file', `open src/m${index}.py`, `module ${index}`),
      ),
      step('edit_file', 'edit 3:4 src/m1.py', 'edited'),
      step('submit', 'submit', ''),
    ],
  };
  const directory = folder(
    { 'a.json': looping, 'b.json': careful },
    '| file | group |\n|---|---|\n| a.json | G1 |\n| b.json | G2 |\n',
  );
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  const [first, second] = loadTrajectories(directory);
  assert.ok(first && second);
  assert.equal(first.group, 'G1');
  const replayed = replayTrajectory(first);
  assert.deepEqual(
    replayed.decisions.map((decision) => `${decision.step}:${decision.guard}:${decision.action}`),
    ['4:loop:prompt', '6:loop:stop'],
  );
  assert.equal(replayed.steps, 6); // keel would have ended it there
  const good = replayTrajectory(second);
  assert.deepEqual(good.decisions, []);
  assert.equal(good.steps, 26); // submit is the final answer, not a tool call
});

test('effects as keel sees them: read-only commands read, failures read, others change', () => {
  assert.equal(effectOf(step('run_command', 'ls -la', 'x')), 'read');
  assert.equal(effectOf(step('run_command', 'python fix.py', 'x')), 'change');
  assert.equal(effectOf(step('edit_file', 'edit a.py', 'x', false)), 'read');
  assert.equal(effectOf(step('write_file', 'create a.py', 'x')), 'change');
});

test('a file that is not a trajectory is named in one line', (t) => {
  const directory = folder({ 'bad.json': { steps: 'no' } });
  t.after(() => rmSync(directory, { recursive: true, force: true }));
  assert.throws(() => loadTrajectories(directory), /^Error: bad\.json: not a trajectory/);
});
