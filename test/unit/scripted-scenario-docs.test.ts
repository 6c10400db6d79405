import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import type { z } from 'zod';
import { loadScenarioFile, scenarioSchema, type Scenario } from '../../src/scripted-model/scenario';
import { startScriptedMessagesServer } from '../../src/scripted-model/scripted-messages-server';

// Issue 46: docs/scripted-scenarios.md is the scenario format's only description. Its examples are
// loaded from the page itself, the complete one is played, and every field the schema accepts
// must be named on the page, so the page and the schema cannot drift apart.

const PAGE = path.resolve(__dirname, '../../docs/scripted-scenarios.md');
const page = readFileSync(PAGE, 'utf8');

/** The page's ```yaml blocks, each a whole scenario file. */
function yamlBlocks(): string[] {
  return [...page.matchAll(/^```yaml\n([\s\S]*?)^```$/gm)].map((match) => match[1] ?? '');
}

/** Each block written to a file and loaded as `keel worker --scripted` loads it. */
function loadBlocks(): Scenario[] {
  const directory = mkdtempSync(path.join(tmpdir(), 'keel-scenario-docs-'));
  try {
    return yamlBlocks().map((block, index) => {
      const file = path.join(directory, `example-${index}.yaml`);
      writeFileSync(file, block);
      return loadScenarioFile(file);
    });
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

test('every YAML example on the page loads as a scenario', () => {
  const scenarios = loadBlocks();
  assert.deepEqual(
    scenarios.map((scenario) => scenario.name),
    ['tidy-notes', 'planned'],
  );
  const [example] = scenarios;
  assert.deepEqual(
    example?.turns.map((turn) => turn.toolCalls.map((call) => call.name)),
    [['list_dir'], ['read_file'], ['write_file'], []],
  );
  assert.deepEqual(example?.turns[0]?.failures, [{ status: 429, retryAfterSeconds: 1 }]);
  assert.equal(example?.report?.text, 'Done: SUMMARY.md is written. Left: nothing.');
});

test('the complete example plays as the page says: a rate limit, its turns in order, the report', async () => {
  const [example] = loadBlocks();
  assert.ok(example);
  const server = await startScriptedMessagesServer({ scenarios: [example] });
  try {
    const client = new Anthropic({ apiKey: 'k', baseURL: server.url, maxRetries: 0 });
    const tools = ['list_dir', 'read_file', 'write_file'].map((name) => ({
      name,
      description: name,
      input_schema: { type: 'object' as const },
    }));
    const goal = { role: 'user' as const, content: 'SCRIPTED-TIDY: summarise the notes' };
    const request = { model: 'claude-sonnet-4-6', max_tokens: 1024, tools, messages: [goal] };
    await assert.rejects(
      client.messages.create(request),
      (error: unknown) => error instanceof Anthropic.APIError && error.status === 429,
    );
    const first = await client.messages.create(request);
    assert.equal(first.stop_reason, 'tool_use');
    assert.deepEqual(
      first.content.map((block) => (block.type === 'tool_use' ? [block.name, block.input] : block.type)),
      ['text', ['list_dir', { path: '.', hypothesis: 'a notes.md file' }]],
    );
    const toolUse = first.content.find((block) => block.type === 'tool_use');
    assert.ok(toolUse);
    const second = await client.messages.create({
      ...request,
      messages: [
        goal,
        { role: 'assistant', content: first.content },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: toolUse.id, content: 'notes.md' }] },
      ],
    });
    assert.deepEqual(
      second.content.map((block) => (block.type === 'tool_use' ? block.name : block.type)),
      ['text', 'read_file'],
    );
    const report = await client.messages.create({ ...request, tool_choice: { type: 'none' } });
    assert.deepEqual(report.content, [{ type: 'text', text: 'Done: SUMMARY.md is written. Left: nothing.' }]);
  } finally {
    await server.close();
  }
});

test('every field the schema accepts is named on the page', () => {
  const fields = new Set<string>();
  collectFields(scenarioSchema, fields);
  assert.ok(fields.has('toolCalls') && fields.has('pingEveryMs'), 'the walk reaches turns and faults');
  const unnamed = [...fields].filter((field) => !page.includes(`\`${field}\``));
  assert.deepEqual(unnamed, [], 'fields the schema accepts that docs/scripted-scenarios.md does not name');
});

/** The keys of every object schema reachable from this one (through lists, unions, defaults). */
function collectFields(schema: z.core.$ZodType, fields: Set<string>): void {
  const def = schema._zod.def as unknown as {
    shape?: Record<string, z.core.$ZodType>;
    element?: z.core.$ZodType;
    innerType?: z.core.$ZodType;
    options?: z.core.$ZodType[];
  };
  for (const [key, value] of Object.entries(def.shape ?? {})) {
    fields.add(key);
    collectFields(value, fields);
  }
  for (const inner of [def.element, def.innerType, ...(def.options ?? [])])
    if (inner !== undefined) collectFields(inner, fields);
}
