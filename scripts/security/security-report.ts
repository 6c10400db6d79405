/**
 * The evaluation's printed report: a table per category (cases, holes by kind), each hole with its
 * evidence, and what approvers would see for the deceptive-label cases. Pure: text in, lines out.
 */
import { printable } from './printable';
import type { CaseRecord } from './run-case';
import { CATEGORIES } from './security-case';
import type { SecurityReport } from './security-eval';
import { HOLE_KIND_DESCRIPTIONS, HOLE_KINDS, type HoleKind } from './verdicts';

export interface CategorySummary {
  readonly category: string;
  readonly cases: number;
  readonly calls: number;
  /** Cases with at least one hole. */
  readonly casesWithHoles: number;
  /** Cases with at least one hole of each kind. */
  readonly byKind: Readonly<Record<HoleKind, number>>;
  /** Cases the harness could not judge. */
  readonly errors: number;
}

export function summarize(cases: readonly CaseRecord[]): { rows: CategorySummary[]; total: CategorySummary } {
  const rows = CATEGORIES.map((category) =>
    summarizeCases(
      category,
      cases.filter((record) => record.category === category),
    ),
  ).filter((row) => row.cases > 0);
  return { rows, total: summarizeCases('total', cases) };
}

export function holeCount(report: Pick<SecurityReport, 'cases'>): number {
  return report.cases.reduce((sum, record) => sum + record.holes.length, 0);
}

export function summaryLines(report: SecurityReport): string[] {
  const { rows, total } = summarize(report.cases);
  const header = ['category', 'cases', 'calls', 'holed', ...HOLE_KINDS.map((kind) => `(${kind})`), 'errors'];
  const line = (row: CategorySummary): string[] => [
    row.category,
    String(row.cases),
    String(row.calls),
    String(row.casesWithHoles),
    ...HOLE_KINDS.map((kind) => String(row.byKind[kind])),
    String(row.errors),
  ];
  const table = [header, ...rows.map(line), line(total)];
  const widths = header.map((_, column) => Math.max(...table.map((cells) => (cells[column] ?? '').length)));
  const format = (cells: readonly string[]): string =>
    cells
      .map((cell, column) =>
        column === 0 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0),
      )
      .join('  ');
  const rule = '-'.repeat(format(header).length);
  return [
    format(header),
    rule,
    ...rows.map((row) => format(line(row))),
    rule,
    format(line(total)),
    '',
    'holed: cases with at least one hole; (a)…(f): cases with a hole of that kind:',
    ...HOLE_KINDS.map((kind) => `  (${kind}) ${HOLE_KIND_DESCRIPTIONS[kind]}`),
  ];
}

/** Every hole, case by case, with its first lines of evidence (all of them when verbose). */
export function holeLines(report: Pick<SecurityReport, 'cases'>, verbose: boolean): string[] {
  const lines: string[] = [];
  for (const record of report.cases) {
    if (record.holes.length === 0) continue;
    lines.push(`${record.id}: ${printable(record.title, 140)}`);
    for (const hole of record.holes) {
      lines.push(`  (${hole.kind}) step ${hole.step}: ${printable(hole.what, 200)}`);
      for (const evidence of hole.evidence.slice(0, verbose ? undefined : 3))
        lines.push(`        ${printable(evidence, 160)}`);
    }
  }
  return lines;
}

export function errorLines(report: Pick<SecurityReport, 'cases'>): string[] {
  return report.cases
    .filter((record) => record.error !== undefined)
    .map((record) => `${record.id}: ${printable((record.error ?? '').split('\n')[0] ?? '', 200)}`);
}

/**
 * What approvers would be shown: for the deceptive-label cases, and for any call whose prepared
 * input lost part of what the model sent. Reported, never counted as a hole.
 */
export function approvalSurfaceLines(report: Pick<SecurityReport, 'cases'>): string[] {
  const lines: string[] = [];
  for (const record of report.cases) {
    for (const step of record.steps) {
      for (const call of step.calls) {
        const approval = call.prepared?.ok === true ? call.prepared.approval : undefined;
        if (approval === undefined) continue;
        if (record.category !== 'deceptive-labels' && approval.fullInputKept) continue;
        const notes = [
          approval.hiddenPartShown === false ? 'hides the dangerous part' : undefined,
          approval.labelShowsWholeInput ? undefined : 'shows only part of the input',
          approval.labelHasInvisibleCharacters
            ? 'holds line breaks or control/bidi/zero-width characters'
            : undefined,
          approval.fullInputKept
            ? 'the prepared call keeps the full input'
            : 'THE PREPARED CALL LOST PART OF THE INPUT',
        ].filter((note): note is string => note !== undefined);
        lines.push(`${record.id}: label "${printable(approval.label, 200)}"`);
        lines.push(`        ${notes.join('; ')}`);
      }
    }
  }
  return lines;
}

function summarizeCases(category: string, cases: readonly CaseRecord[]): CategorySummary {
  const byKind = Object.fromEntries(
    HOLE_KINDS.map((kind) => [
      kind,
      cases.filter((record) => record.holes.some((hole) => hole.kind === kind)).length,
    ]),
  ) as Record<HoleKind, number>;
  return {
    category,
    cases: cases.length,
    calls: cases.reduce(
      (sum, record) => sum + record.steps.reduce((count, step) => count + step.calls.length, 0),
      0,
    ),
    casesWithHoles: cases.filter((record) => record.holes.length > 0).length,
    byKind,
    errors: cases.filter((record) => record.error !== undefined).length,
  };
}
