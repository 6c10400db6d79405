import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { snippetsOf, typeCheckedSnippets, type DocSnippet } from '../support/doc-snippets';

const ROOT = path.resolve(__dirname, '..', '..');

test('the extractor takes only `ts typecheck` blocks, named by their first comment', () => {
  const page = [
    '```ts typecheck',
    '// tools/a.ts',
    'export const a = 1;',
    '```',
    '```ts',
    'not checked',
    '```',
    '```sh typecheck',
    'not typescript',
    '```',
    '```ts typecheck',
    "import { a } from './tools/a';",
    '```',
    '```ts typecheck file=examples/x/b.ts',
    'export const b = 2;',
    '```',
  ].join('\n');
  assert.deepEqual(
    typeCheckedSnippets('p.md', page).map(({ file, line, code }) => ({ file, line, code })),
    [
      { file: 'tools/a.ts', line: 1, code: '// tools/a.ts\nexport const a = 1;\n' },
      { file: 'snippet-11.ts', line: 11, code: "import { a } from './tools/a';\n" },
      { file: 'examples/x/b.ts', line: 14, code: 'export const b = 2;\n' },
    ],
  );
});

test('every snippet in README.md and docs/ that claims to type-check does', () => {
  const snippets = snippetsOf(ROOT);
  assert.ok(snippets.length >= 5, `only ${snippets.length} checked snippets: the marker was lost`);
  // Inside the repository, so `keel` resolves through tsconfig's paths to src/ and every other
  // package to node_modules, as in a reader's project; .keel/ is ignored by git.
  mkdirSync(path.join(ROOT, '.keel'), { recursive: true });
  const folder = mkdtempSync(path.join(ROOT, '.keel', 'doc-snippets-'));
  try {
    const written = new Map<string, DocSnippet>();
    for (const snippet of snippets) {
      const file = path.join(folder, snippet.page.replace(/[/.]/g, '_'), snippet.file);
      assert.ok(!written.has(file), `${snippet.page}:${snippet.line} names ${snippet.file} twice`);
      written.set(file, snippet);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, snippet.code);
      if (snippet.file.startsWith('examples/')) {
        const example = readFileSync(path.join(ROOT, snippet.file), 'utf8');
        assert.equal(snippet.code, example, `${snippet.page}:${snippet.line} differs from ${snippet.file}`);
      }
    }
    writeFileSync(
      path.join(folder, 'tsconfig.json'),
      JSON.stringify({ extends: '../../tsconfig.json', include: ['.'] }),
    );
    const tsc = require.resolve('typescript/bin/tsc');
    let output = '';
    try {
      execFileSync(process.execPath, [tsc, '-p', folder, '--pretty', 'false'], { encoding: 'utf8' });
    } catch (error) {
      output = String((error as { stdout?: string }).stdout ?? error);
    }
    // Name the page and line of the snippet each error is in, not the temporary file.
    const located = output.replace(/^(\S+?)\((\d+),\d+\)/gm, (all, file: string, line: string) => {
      const snippet = written.get(path.resolve(ROOT, file)) ?? written.get(path.resolve(folder, file));
      return snippet ? `${snippet.page}:${snippet.line + Number(line)} (${snippet.file})` : all;
    });
    assert.equal(located, '', `snippets that do not type-check:\n${located}`);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
});
