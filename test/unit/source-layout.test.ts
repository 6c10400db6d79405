import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';

// src/ is a stack of rooms (docs/development.md, "Where things live"): a room imports only the
// rooms below it, so the workflow code never depends on the worker and the worker never on the
// CLI. The entry points at src/'s top (index.ts, worker.ts) may import any room; worker.ts counts
// as the worker's room for the rooms above it. Workflow code's rooms have their own test
// (workflow-layout.test.ts); the type-only imports of the activities' types it makes, as
// Temporal's samples do, are allowed there and here.
const SRC = path.resolve(__dirname, '../../src');
const STACK: readonly (readonly string[])[] = [
  ['demo'],
  ['cli'],
  ['inbox'],
  ['worker'],
  ['config'],
  ['scripted-model'],
  ['activities'],
  ['client'],
  ['dev-server'],
  ['codec', 'tracing'],
  ['workflows'],
];
const MAX_LINES = 400;

function sourceFiles(directory = SRC): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Relative imports, requires and dynamic imports, resolved, with whether they are type-only. */
function importsOf(file: string): { target: string; typeOnly: boolean }[] {
  const text = readFileSync(file, 'utf8');
  const found = [
    ...text.matchAll(/^(import|export)( type)?[^;]*?from '(\.{1,2}\/[^']+)'/gms),
    ...text.matchAll(/()()(?:require|import)\('(\.{1,2}\/[^']+)'\)/g),
  ];
  return found.map((match) => ({
    target: path.resolve(path.dirname(file), match[3] ?? ''),
    typeOnly: match[2] === ' type' || /typeof import\(/.test(match[0]),
  }));
}

/** The room of a file or module path: its first folder under src/, or worker for src/worker.ts. */
function roomOf(target: string): string {
  const [first = '', ...rest] = path.relative(SRC, target).split(path.sep);
  if (rest.length > 0 || statSync(target, { throwIfNoEntry: false })?.isDirectory()) return first;
  const name = first.replace(/\.(ts|js)$/, '');
  return name === 'worker' ? 'worker' : `(entry) ${name}`;
}

const level = (room: string): number => STACK.findIndex((rooms) => rooms.includes(room));

test('every room of src/ imports only the rooms below it', () => {
  const problems: string[] = [];
  for (const file of sourceFiles()) {
    const from = roomOf(file);
    if (from.startsWith('(entry)') || file === path.join(SRC, 'worker.ts')) continue;
    if (level(from) < 0) {
      problems.push(`${path.relative(SRC, file)} is in no room of the stack`);
      continue;
    }
    for (const { target, typeOnly } of importsOf(file)) {
      const to = roomOf(target);
      if (to === from) continue;
      if (from === 'workflows' && to === 'activities' && typeOnly) continue;
      if (level(to) <= level(from)) problems.push(`${path.relative(SRC, file)} (${from}) imports ${to}`);
    }
  }
  assert.deepEqual(problems, []);
});

test(`no source file is over ${MAX_LINES} lines`, () => {
  const long = sourceFiles()
    .map((file) => ({
      file: path.relative(SRC, file),
      lines: readFileSync(file, 'utf8').split('\n').length - 1,
    }))
    .filter(({ lines }) => lines > MAX_LINES)
    .map(({ file, lines }) => `${file}: ${lines} lines`);
  assert.deepEqual(long, []);
});
