import { test } from 'node:test';
import assert from 'node:assert/strict';
import { builtinTools } from '../../src/activities/tools/builtin';
import { createToolActivities } from '../../src/activities/tools/tool-activities';
import { createToolRegistry } from '../../src/worker';
import { makeWorkspace } from './tools-test-helpers';

const BUILTIN_NAMES = ['read_file', 'list_dir', 'search', 'write_file', 'edit_file', 'run_command'];
const registry = createToolRegistry({});
const { prepareToolCalls, describeTools } = createToolActivities({
  registry,
  journalDirectory: makeWorkspace('keel-journal-'),
});

async function prepareOne(toolName: string, input: unknown) {
  const [prepared] = await prepareToolCalls({ calls: [{ callId: 'c1', toolName, input }] });
  assert.ok(prepared);
  return prepared;
}

test('the six built-ins are defineTool definitions, registered as builtin', () => {
  assert.deepEqual(
    builtinTools.map((tool) => tool.name),
    BUILTIN_NAMES,
  );
  for (const tool of builtinTools) assert.equal(tool.kind, 'keel-tool');
  assert.deepEqual(registry.names(), BUILTIN_NAMES);
});

test('tiers are decided from the arguments, per call where the tool says so', async () => {
  const tiers = [
    ['read_file', { path: 'a.ts' }, 'read-only'],
    ['list_dir', {}, 'read-only'],
    ['search', { pattern: 'x' }, 'read-only'],
    ['write_file', { path: 'a', content: '' }, 'mutating'],
    ['edit_file', { path: 'a', oldString: 'x', newString: 'y' }, 'mutating'],
    ['run_command', { command: 'git status' }, 'read-only'],
    ['run_command', { command: 'make install' }, 'mutating'],
    ['run_command', { command: 'git status', changesFiles: true }, 'mutating'],
  ] as const;
  for (const [name, input, tier] of tiers) {
    const prepared = await prepareOne(name, input);
    assert.ok(prepared.ok, name);
    assert.equal(prepared.tier, tier, `${name} ${JSON.stringify(input)}`);
  }
  const catalogue = await describeTools({});
  const tierRules = Object.fromEntries(catalogue.map((entry) => [entry.name, entry.tier]));
  assert.deepEqual(tierRules.run_command, { kind: 'per-call' });
  assert.deepEqual(tierRules.write_file, { kind: 'fixed', tier: 'mutating' });
  const make = await prepareOne('run_command', { command: 'make install' });
  assert.ok(make.ok);
  assert.match(make.reason ?? '', /make/);
  // A decision covers its own tier only (decision-tier.ts): what goes beyond the mutating tier
  // waits for an approver of irreversible calls, not for whoever approves this one.
  assert.match(
    make.reason ?? '',
    /; it runs on a copy-on-write layer, and a change beyond a mutating call \(a deletion, git's configuration\) waits for an approver of irreversible calls$/,
  );
  const described = catalogue.find((entry) => entry.name === 'run_command')?.description ?? '';
  assert.match(
    described,
    /touching \.git configuration or hooks, waits for an approver of irreversible calls\./,
  );
});

test('summaries name the tool and its key argument', async () => {
  const summary = async (name: string, input: unknown) => {
    const prepared = await prepareOne(name, input);
    assert.ok(prepared.ok);
    return prepared.summary;
  };
  assert.equal(await summary('run_command', { command: 'rm -rf build' }), 'run_command: rm -rf build');
  assert.equal(await summary('read_file', { path: 'src/app.ts' }), 'read_file: src/app.ts');
  assert.equal(
    await summary('read_file', { path: 'big.txt', offset: 10, limit: 5 }),
    'read_file: big.txt (lines 10-14)',
  );
  assert.equal(await summary('search', { pattern: 'foo', caseInsensitive: true }), 'search: /foo/i in .');
  const long = await summary('run_command', { command: `echo ${'x'.repeat(300)}` });
  assert.ok(long.length <= 'run_command: '.length + 100, long);
  assert.ok(long.endsWith('…'));
});

test('costly tools recommend a hypothesis in their description', () => {
  for (const name of ['run_command', 'search', 'read_file']) {
    const tool = builtinTools.find((candidate) => candidate.name === name);
    assert.match(tool?.description ?? '', /hypothesis/, name);
  }
});

test('the catalogue gives object schemas with a hypothesis field and no $schema', async () => {
  const catalogue = await describeTools({});
  assert.deepEqual(
    catalogue.map((entry) => entry.name),
    BUILTIN_NAMES,
  );
  for (const entry of catalogue) {
    const schema = entry.inputSchema;
    assert.equal(schema.type, 'object', entry.name);
    assert.equal('$schema' in schema, false, entry.name);
    const properties = schema.properties as Record<string, { type?: string; description?: string }>;
    assert.equal(properties.hypothesis?.type, 'string', entry.name);
    assert.ok(properties.hypothesis?.description, entry.name);
    assert.ok(!(schema.required as string[] | undefined)?.includes('hypothesis'), entry.name);
    assert.ok(entry.description.length > 20, entry.name);
    assert.equal(entry.source, 'builtin');
  }
  const runCommand = catalogue.find((entry) => entry.name === 'run_command');
  assert.deepEqual(runCommand?.inputSchema.required, ['command']);
});

test('prepareToolCalls validates and keeps the parsed input', async () => {
  const prepared = await prepareOne('run_command', { command: 'rm -rf build', hypothesis: 'build is gone' });
  assert.deepEqual(prepared, {
    ok: true,
    callId: 'c1',
    input: { command: 'rm -rf build', hypothesis: 'build is gone' },
    tier: 'mutating',
    reason: prepared.ok ? prepared.reason : undefined,
    summary: 'run_command: rm -rf build',
  });
});

test('prepareToolCalls names the wrong fields and what the tool accepts', async () => {
  const result = await prepareOne('read_file', { path: 3, limit: 'ten' });
  assert.ok(!result.ok);
  assert.match(result.error, /read_file/);
  assert.match(result.error, /path: /);
  assert.match(result.error, /limit: /);
  assert.match(result.candidates[1] ?? '', /path \(required\), offset, limit, hypothesis/);
  const tooLong = await prepareOne('run_command', { command: 'ls', timeoutSeconds: 601 });
  assert.ok(!tooLong.ok);
  assert.match(tooLong.error, /timeoutSeconds/);
});

test('prepareToolCalls answers for a tool this worker lacks, and never for Object.prototype', async () => {
  for (const name of ['launch_rocket', 'toString', 'constructor']) {
    const result = await prepareOne(name, {});
    assert.ok(!result.ok, name);
    assert.match(result.error, new RegExp(name));
  }
});
