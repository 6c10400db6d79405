import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { loadScenarioFile, parseScenario } from '../../src/scripted-model/scenario';
import { isScenarioError, type ScenarioError } from '../../src/scripted-model/scenario-error';

// Issue 46: a scenario that cannot be used says which file and where, in one line:
// `<file>:<line>:<col>: <what>` for a syntax error, `<file>: <field>: <what>` for the schema.

const directory = mkdtempSync(path.join(tmpdir(), 'keel-scenario-errors-'));
after(() => rmSync(directory, { recursive: true, force: true }));

function scenarioFile(name: string, text: string): string {
  const file = path.join(directory, name);
  writeFileSync(file, text);
  return file;
}

/** The ScenarioError loading the file throws (the test fails if it loads). */
function loadError(file: string): ScenarioError {
  try {
    loadScenarioFile(file);
  } catch (error) {
    assert.ok(isScenarioError(error), `a ScenarioError, not ${String(error)}`);
    assert.doesNotMatch(error.message, /\n/, 'one line');
    return error;
  }
  assert.fail(`${file} loaded`);
}

test('a YAML syntax error names the file, the line and the column', () => {
  const file = scenarioFile(
    'unclosed.yaml',
    ['name: broken', 'turns:', '  - text: hi', '    toolCalls: [ { name: list_dir', ''].join('\n'),
  );
  const error = loadError(file);
  assert.match(error.message, /^.*unclosed\.yaml:5:1: Flow (map|sequence) .* must .*end with a [}\]]$/);
  assert.equal(error.message.startsWith(`${file}:5:1: `), true);
  assert.deepEqual(error.details, { source: file, line: 5, column: 1 });
});

test('a YAML error in the middle of a line points at it', () => {
  const file = scenarioFile('nested.yaml', ['name: x', 'turns:', '  - text: a: b', ''].join('\n'));
  assert.equal(loadError(file).message, `${file}:3:11: Nested mappings are not allowed in compact mappings`);
});

test('a JSON syntax error names the file, the line and the column', () => {
  const file = scenarioFile('trailing.json', '{\n  "name": "x",\n  "turns": [ { "text": "a" }\n}\n');
  assert.match(loadError(file).message, new RegExp(`^${escaped(file)}:\\d+:\\d+: .+`));
});

test('a duplicate key is a syntax error with its position', () => {
  const file = scenarioFile('twice.yaml', 'name: x\nname: y\nturns: [{ text: a }]\n');
  assert.equal(loadError(file).message, `${file}:2:1: Map keys must be unique`);
});

test('an unknown field names the file and its own path', () => {
  const file = scenarioFile(
    'unknown.yaml',
    ['name: x', 'turns:', '  - text: a', '  - text: b', '    tooCalls: []', ''].join('\n'),
  );
  const error = loadError(file);
  assert.equal(error.message, `${file}: turns[1].tooCalls: unknown field`);
  assert.equal(error.details.field, 'turns[1].tooCalls');
});

test('a wrong type names the file and the field as written in the file', () => {
  const file = scenarioFile(
    'wrong-type.yaml',
    [
      'name: x',
      'turns:',
      '  - text: a',
      '  - text: b',
      '  - toolCalls:',
      '      - name: 42',
      '        input: { path: . }',
      '',
    ].join('\n'),
  );
  assert.equal(
    loadError(file).message,
    `${file}: turns[2].toolCalls[0].name: expected string, received number`,
  );
});

test('a missing field is called missing', () => {
  const file = scenarioFile('missing.json', JSON.stringify({ name: 'x', turns: [{ toolCalls: [{}] }] }));
  assert.equal(loadError(file).message, `${file}: turns[0].toolCalls[0].name: missing (expected string)`);
});

test('a wrong value in a fault names the fault and says how many more problems there are', () => {
  const file = scenarioFile(
    'fault.yaml',
    'name: x\nturns:\n  - faults: [{ kind: stall, afterEvents: soon }]\n    delayMs: -1\n',
  );
  assert.equal(
    loadError(file).message,
    `${file}: turns[0].faults[0].afterEvents: expected number, received string (and 1 more problem)`,
  );
});

test('a file that is not a scenario at all (empty, a list) says so at the top level', () => {
  assert.equal(
    loadError(scenarioFile('empty.yaml', '')).message,
    `${directory}/empty.yaml: expected object, received null`,
  );
  assert.equal(
    loadError(scenarioFile('list.yaml', '- a\n')).message,
    `${directory}/list.yaml: expected object, received array`,
  );
});

test('a missing file names the file and why', () => {
  const file = path.join(directory, 'no-such-scenario.yaml');
  const error = loadError(file);
  assert.equal(error.message, `${file}: cannot read the scenario file: no such file`);
  assert.equal(error.details.source, file);
  assert.equal(
    loadError(directory).message,
    `${directory}: cannot read the scenario file: a directory, not a file`,
  );
});

test('a scenario given as data names its label and the field', () => {
  assert.throws(
    () => parseScenario({ name: 'x', turns: [{ text: 'a' }, { toolCalls: [{ name: '' }] }] }, 'fixture'),
    (error: unknown) =>
      isScenarioError(error) &&
      error.message ===
        'fixture: turns[1].toolCalls[0].name: Too small: expected string to have >=1 characters',
  );
  assert.throws(
    () => parseScenario({ name: 'x', turns: [{ 'tool calls': [], other: 1 }] }),
    (error: unknown) =>
      isScenarioError(error) &&
      error.message === 'scenario: turns[0]["tool calls"]: unknown field (also unknown: other)',
  );
});

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
