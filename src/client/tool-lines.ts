import type { ToolCatalogue, ToolCatalogueEntry } from '../workflows/tools/tool-catalogue';

/**
 * How `keel tools` and the worker's start log show a worker's tools: pure text from the catalogue
 * (the same data a goal records at its start).
 */

/** builtin → built-in, worker → yours, mcp:files → MCP server "files". */
export function sourceLabel(source: string): string {
  if (source === 'builtin') return 'built-in';
  if (source === 'worker') return 'yours';
  if (source.startsWith('mcp:')) return `MCP server "${source.slice('mcp:'.length)}"`;
  return source;
}

/** When a call of the tool waits for a human, from its tier rule. */
export type ApprovalRule = 'never' | 'policy-ask' | 'always' | 'per-call';

export function approvalRule(entry: Pick<ToolCatalogueEntry, 'tier'>): ApprovalRule {
  if (entry.tier.kind === 'per-call') return 'per-call';
  if (entry.tier.tier === 'read-only') return 'never';
  return entry.tier.tier === 'mutating' ? 'policy-ask' : 'always';
}

const APPROVAL_TEXT: Record<ApprovalRule, string> = {
  never: 'never asks',
  'policy-ask': 'asks under --approval-policy ask',
  always: 'always asks a human',
  'per-call': 'asks as its tier for the call says',
};

function tierText(entry: Pick<ToolCatalogueEntry, 'tier'>): string {
  return entry.tier.kind === 'fixed' ? entry.tier.tier : 'per call (decided from the input)';
}

/** `path*, offset, limit, hypothesis`: the input's fields, required ones starred. */
export function inputFields(schema: Record<string, unknown>): string {
  const properties = Object.keys((schema.properties as Record<string, unknown> | undefined) ?? {});
  const required = new Set(Array.isArray(schema.required) ? (schema.required as unknown[]) : []);
  if (properties.length === 0) return '(none)';
  return properties.map((name) => (required.has(name) ? `${name}*` : name)).join(', ');
}

/** `keel tools`: a table of name, tier, approval and source, each tool's input fields under it. */
export function toolLines(catalogue: ToolCatalogue): string[] {
  if (catalogue.length === 0) return ['no tools'];
  const rows = catalogue.map((entry) => [
    entry.name,
    tierText(entry),
    APPROVAL_TEXT[approvalRule(entry)],
    sourceLabel(entry.source),
  ]);
  const header = ['TOOL', 'TIER', 'APPROVAL', 'SOURCE'];
  const widths = header.map((title, column) =>
    Math.max(title.length, ...rows.map((row) => (row[column] ?? '').length)),
  );
  const line = (cells: readonly string[]) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column] ?? 0))
      .join('  ')
      .trimEnd();
  return [
    line(header),
    ...catalogue.flatMap((entry, index) => [
      line(rows[index] ?? []),
      `  input: ${inputFields(entry.inputSchema)}`,
    ]),
    '(* required; --json for descriptions and whole input schemas)',
  ];
}

/** The worker's start log: how many tools, and their names by source, a few per source. */
export function workerToolsLine(catalogue: ToolCatalogue, perSource = 8): string {
  const bySource = new Map<string, string[]>();
  for (const entry of catalogue)
    bySource.set(entry.source, [...(bySource.get(entry.source) ?? []), entry.name]);
  const groups = [...bySource].map(([source, names]) => {
    const shown = names.slice(0, perSource).join(', ');
    const more = names.length > perSource ? `, … ${names.length - perSource} more` : '';
    return `${sourceLabel(source)}: ${shown}${more}`;
  });
  const count = `${catalogue.length} tool${catalogue.length === 1 ? '' : 's'}`;
  return groups.length === 0
    ? `${count} (keel tools lists them)`
    : `${count} — ${groups.join('; ')} (keel tools lists them)`;
}
