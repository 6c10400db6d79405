import { test } from 'node:test';
import assert from 'node:assert/strict';
import { denialAlternatives } from '../../src/workflows/tools/denial-alternatives';
import { denialText } from '../../src/workflows/goal/tool-calls/turn';
import type { ToolCatalogue, ToolCatalogueEntry } from '../../src/workflows/tools/tool-catalogue';

const BUILTIN_NAMES = /\b(list_dir|read_file|search|write_file|edit_file|run_command)\b/;

function entry(name: string, tier: ToolCatalogueEntry['tier'], source = 'worker'): ToolCatalogueEntry {
  return { name, description: name, inputSchema: { type: 'object' }, tier, source };
}
const fixed = (tier: 'read-only' | 'mutating' | 'irreversible') => ({ kind: 'fixed' as const, tier });

// A goal with only the user's own tools (builtinTools: false, or `tools: ["crm_*"]`).
const CRM: ToolCatalogue = [
  entry('crm_send_email', fixed('irreversible')),
  entry('crm_find_contact', fixed('read-only')),
  entry('crm_update_note', fixed('mutating')),
  entry('crm_get_contact', fixed('read-only')),
  entry('crm_export', { kind: 'per-call' }),
];

test("after a denial, the next actions name the goal's own tools and never a built-in it lacks", () => {
  const alternatives = denialAlternatives({
    catalogue: CRM,
    toolName: 'crm_send_email',
    reversibility: 'irreversible',
  });
  assert.deepEqual(alternatives, [
    'Inspect first with read-only calls (crm_find_contact, crm_get_contact) to confirm whether this step is needed at all',
    'Leave the refused change undone: making it with another tool or a script is the same request, and waits for a human again',
    'Explain in your answer what this step would do and why, so a human can approve it next time',
  ]);
  const text = denialText(
    { approved: false, approver: 'ann', reason: '', decidedAt: '', via: 'signal' },
    { toolName: 'crm_send_email', reversibility: 'irreversible' },
    CRM,
  );
  assert.doesNotMatch(text, BUILTIN_NAMES);
  assert.match(text, /crm_find_contact/);
});

test('a goal with no read-only or mutating tool is offered no tool at all, and the denied tool is never offered again', () => {
  const only = [entry('deploy', fixed('irreversible')), entry('shell', { kind: 'per-call' })];
  const alternatives = denialAlternatives({
    catalogue: only,
    toolName: 'deploy',
    reversibility: 'irreversible',
  });
  assert.equal(alternatives.length, 3);
  for (const alternative of alternatives) assert.doesNotMatch(alternative, /\b(deploy|shell)\b|\(\)/);
  const mutatingDenied = denialAlternatives({
    catalogue: [entry('crm_update_note', fixed('mutating')), entry('crm_get_contact', fixed('read-only'))],
    toolName: 'crm_update_note',
    reversibility: 'mutating',
  });
  assert.doesNotMatch(mutatingDenied.join('\n'), /crm_update_note/);
  assert.match(mutatingDenied[0] ?? '', /\(crm_get_contact\)/);
});

test("keel's own tools come first when the goal has them, at most three readers, and no writer is offered as a way around the denial", () => {
  const mixed = [
    entry('mcp__a', fixed('read-only'), 'mcp:x'),
    entry('mcp__b', fixed('read-only'), 'mcp:x'),
    entry('search', fixed('read-only'), 'builtin'),
    entry('read_file', fixed('read-only'), 'builtin'),
    entry('notes_put', fixed('mutating')),
    entry('edit_file', fixed('mutating'), 'builtin'),
    entry('write_file', fixed('mutating'), 'builtin'),
  ];
  const [look, change] = denialAlternatives({
    catalogue: mixed,
    toolName: 'run_command',
    reversibility: 'irreversible',
  });
  assert.match(look ?? '', /\(read_file, search, mcp__a\)/);
  // issue 44: after `rm -rf build` was denied, "reach the result with write_file" led the model
  // to empty the files one by one: a denial is of the change, whatever tool makes it
  assert.doesNotMatch(change ?? '', /write_file|edit_file|notes_put/);
  assert.match(change ?? '', /another tool or a script is the same request/);
});
