import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

// src/workflows is split into rooms whose dependencies point one way: the goal lifecycle uses
// the seed concepts, which use the common shapes, which use the tools' pure data. A file that
// imports "upwards" (or any import cycle) makes the rooms one tangle again; this test says where.
const ROOT = path.resolve(__dirname, '../../src/workflows');
const ALLOWED: Readonly<Record<string, readonly string[]>> = {
  goal: [
    'goal',
    'approvals',
    'planning',
    'principles',
    'reflection',
    'delegation',
    'common',
    'tools',
    'hosts',
  ],
  /** Who may delegate, a child's tools, budget slice and start (the delegate tool), pure. */
  delegation: ['delegation', 'tools'],
  /** Who may decide, signatures and approval rules, pure. */
  approvals: ['approvals', 'common', 'tools'],
  planning: ['planning', 'common', 'tools'],
  principles: ['principles', 'reflection', 'common', 'tools'],
  reflection: ['reflection', 'common', 'tools'],
  common: ['common', 'tools'],
  tools: ['tools'],
  /** `keel tools`: a worker's catalogue, asked through Temporal. */
  catalogue: ['catalogue', 'common', 'tools'],
  /** Workspace affinity: host naming, the binding choice and the writes a move can lose (read off tool outcomes), pure. */
  hosts: ['hosts', 'tools'],
};

function workflowFiles(directory = ROOT): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(directory, entry.name);
    if (entry.isDirectory()) return workflowFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** Relative imports of a file (type-only ones too: a type cycle is still a tangle), resolved. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(/from '(\.{1,2}\/[^']+)'/g)].map((match) => {
    const target = path.resolve(path.dirname(file), match[1] ?? '');
    return target.endsWith('.ts') ? target : `${target}.ts`;
  });
}

const roomOf = (file: string): string => path.relative(ROOT, file).split(path.sep)[0] ?? '';

test('every workflow file lives in a room, and rooms import only the rooms below them', () => {
  const problems: string[] = [];
  for (const file of workflowFiles()) {
    const room = roomOf(file);
    if (file === path.join(ROOT, 'index.ts')) continue;
    const allowed = ALLOWED[room];
    if (allowed === undefined) {
      problems.push(`${path.relative(ROOT, file)} is in no room (${Object.keys(ALLOWED).join(', ')})`);
      continue;
    }
    for (const target of importsOf(file)) {
      if (!target.startsWith(ROOT)) continue; // activity types and the like are checked by lint
      if (!allowed.includes(roomOf(target))) {
        problems.push(`${path.relative(ROOT, file)} imports ${path.relative(ROOT, target)}`);
      }
    }
  }
  assert.deepEqual(problems, []);
});

test('workflow files import one another without cycles', () => {
  const graph = new Map(
    workflowFiles().map((file) => [file, importsOf(file).filter((target) => target.startsWith(ROOT))]),
  );
  const cycles: string[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (file: string, trail: string[]): void => {
    if (state.get(file) === 'done') return;
    if (state.get(file) === 'visiting') {
      cycles.push([...trail.slice(trail.indexOf(file)), file].map((f) => path.relative(ROOT, f)).join(' → '));
      return;
    }
    state.set(file, 'visiting');
    for (const target of graph.get(file) ?? []) visit(target, [...trail, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
  assert.deepEqual(cycles, []);
});
