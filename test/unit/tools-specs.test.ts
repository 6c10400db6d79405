import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TOOL_NAMES,
  classifyToolCall,
  getToolSpec,
  toolDefinitionsForModel,
  toolSpecs,
} from '../../src/workflows/tools/tool-registry';

test('reversibility per tool is decided from the arguments', () => {
  assert.equal(toolSpecs.read_file.reversibility({ path: 'a.ts' }), 'read-only');
  assert.equal(toolSpecs.list_dir.reversibility({}), 'read-only');
  assert.equal(toolSpecs.search.reversibility({ pattern: 'x' }), 'read-only');
  assert.equal(toolSpecs.write_file.reversibility({ path: 'a', content: '' }), 'mutating');
  assert.equal(toolSpecs.edit_file.reversibility({ path: 'a', oldString: 'x', newString: 'y' }), 'mutating');
  assert.equal(toolSpecs.run_command.reversibility({ command: 'git status' }), 'read-only');
  assert.equal(toolSpecs.run_command.reversibility({ command: 'make install' }), 'irreversible');
});

test('summaries name the tool and its key argument', () => {
  assert.equal(toolSpecs.run_command.summarize({ command: 'rm -rf build' }), 'run_command: rm -rf build');
  assert.equal(toolSpecs.read_file.summarize({ path: 'src/app.ts' }), 'read_file: src/app.ts');
  assert.equal(
    toolSpecs.read_file.summarize({ path: 'big.txt', offset: 10, limit: 5 }),
    'read_file: big.txt (lines 10-14)',
  );
  assert.equal(toolSpecs.search.summarize({ pattern: 'foo', caseInsensitive: true }), 'search: /foo/i in .');
  const long = toolSpecs.run_command.summarize({ command: `echo ${'x'.repeat(300)}` });
  assert.ok(long.length <= 'run_command: '.length + 100, long);
  assert.ok(long.endsWith('…'));
});

test('costly tools recommend a hypothesis in their description', () => {
  for (const name of ['run_command', 'search', 'read_file'] as const) {
    assert.match(toolSpecs[name].description, /hypothesis/, name);
  }
});

test('toolDefinitionsForModel gives object schemas with a hypothesis field and no $schema', () => {
  const definitions = toolDefinitionsForModel(TOOL_NAMES);
  assert.deepEqual(
    definitions.map((definition) => definition.name),
    [...TOOL_NAMES],
  );
  for (const definition of definitions) {
    const schema = definition.input_schema;
    assert.equal(schema.type, 'object', definition.name);
    assert.equal('$schema' in schema, false, definition.name);
    const properties = schema.properties as Record<string, { type?: string; description?: string }>;
    assert.equal(properties.hypothesis?.type, 'string', definition.name);
    assert.ok(properties.hypothesis?.description, definition.name);
    assert.ok(!(schema.required as string[] | undefined)?.includes('hypothesis'), definition.name);
    assert.ok(definition.description.length > 20, definition.name);
  }
  const runCommand = definitions.find((definition) => definition.name === 'run_command');
  assert.deepEqual(runCommand?.input_schema.required, ['command']);
});

test('toolDefinitionsForModel keeps the order asked for and rejects unknown names', () => {
  assert.deepEqual(
    toolDefinitionsForModel(['search', 'read_file']).map((definition) => definition.name),
    ['search', 'read_file'],
  );
  assert.throws(() => toolDefinitionsForModel(['launch_rocket']), /launch_rocket/);
});

test('classifyToolCall validates, classifies and summarizes', () => {
  const result = classifyToolCall('run_command', { command: 'rm -rf build', hypothesis: 'build is gone' });
  assert.deepEqual(result, {
    ok: true,
    input: { command: 'rm -rf build', hypothesis: 'build is gone' },
    reversibility: 'irreversible',
    summary: 'run_command: rm -rf build',
  });
});

test('classifyToolCall names the wrong fields', () => {
  const result = classifyToolCall('read_file', { path: 3, limit: 'ten' });
  assert.equal(result.ok, false);
  assert.ok(!result.ok);
  assert.match(result.error, /read_file/);
  assert.match(result.error, /path: /);
  assert.match(result.error, /limit: /);
  const tooLong = classifyToolCall('run_command', { command: 'ls', timeoutSeconds: 601 });
  assert.ok(!tooLong.ok);
  assert.match(tooLong.error, /timeoutSeconds/);
});

test('classifyToolCall rejects unknown tools and lists the known ones', () => {
  const result = classifyToolCall('launch_rocket', {});
  assert.ok(!result.ok);
  assert.match(result.error, /launch_rocket/);
  for (const name of TOOL_NAMES) assert.ok(result.error.includes(name), name);
  assert.equal(getToolSpec('toString'), undefined);
  assert.equal(getToolSpec('search'), toolSpecs.search);
});
