import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ESLint } from 'eslint';

// The rule that keeps workflow code deterministic is only worth something if it fires. The text
// is linted as if it were an existing file, because typed linting only knows the project's files.
const ROOT = path.resolve(__dirname, '../..');

async function restrictedImportMessages(code: string, file: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: ROOT });
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return (result?.messages ?? [])
    .filter(
      (message) => message.ruleId === 'no-restricted-imports' || message.ruleId === 'no-restricted-globals',
    )
    .map((message) => message.message);
}

test('src/workflows/** (nested folders too) may not import Node built-ins, the LLM SDK or I/O libraries, nor read process', async () => {
  const code = [
    "import { readFileSync } from 'node:fs';",
    "import path from 'path';",
    "import Anthropic from '@anthropic-ai/sdk';",
    "import { Client } from 'pg';",
    'export const probe = [readFileSync, path, Anthropic, Client, process.env];',
  ].join('\n');
  const messages = await restrictedImportMessages(code, 'src/workflows/tools/tool-catalogue.ts');
  assert.equal(
    messages.filter((message) => message.includes('Workflow code must stay deterministic')).length,
    4,
  );
  assert.ok(messages.some((message) => message.includes('No environment access in workflow code')));
});

test('activities may do I/O', async () => {
  const messages = await restrictedImportMessages(
    "import { readFileSync } from 'node:fs';\nexport const probe = readFileSync;",
    'src/activities/activity-context.ts',
  );
  assert.deepEqual(messages, []);
});
