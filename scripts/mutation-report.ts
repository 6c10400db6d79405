/**
 * Turns Stryker's JSON report (reports/mutation.json, written by `npm run test:mutation`) into
 * reports/mutation.md: the score per module group and per file, every surviving mutant, and the
 * survivors judged equivalent (no test can kill them), each with why.
 *
 *   tsx scripts/mutation-report.ts [reports/mutation.json] [reports/mutation.md]
 *
 * Scores follow Stryker: killed and timed-out mutants over every valid one (survivors and
 * mutants no test reaches included); mutants that do not compile are left out. The "without
 * equivalents" column also leaves out the equivalent mutants listed below.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Equivalent } from './mutation-report/equivalent';
import { equivalentsOfCodecWorkspaceAndHypothesis } from './mutation-report/equivalents-codec-workspace-hypothesis';
import { equivalentsOfBudgetsLoopsPlanningAndShell } from './mutation-report/equivalents-budgets-loops-planning-shell';
import { equivalentsOfGoalAndApprovals } from './mutation-report/equivalents-goal-and-approvals';
import { equivalentsOfHypervectorsIntentsAndGuards } from './mutation-report/equivalents-hypervectors-intents-guards';

interface Mutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  status: string;
  location: { start: { line: number; column: number }; end: { line: number; column: number } };
}

interface Report {
  files: Record<string, { source: string; mutants: Mutant[] }>;
}

/** Module groups, in the order docs/development.md names them; a file joins the first group matching it. */
const GROUPS: ReadonlyArray<readonly [string, RegExp]> = [
  ['Tiers: what an unapproved call may keep', /^src\/workflows\/tools\/workspace-change-policy\.ts$/],
  ['Tools: per-command option lists', /^src\/workflows\/tools\/read-only-(options|git)\.ts$/],
  ['Tools: here-documents and rough words', /^src\/workflows\/tools\/(here-documents|rough-words)\.ts$/],
  ['Tools: shell command classification', /^src\/workflows\/tools\//],
  ['Context budget', /^src\/workflows\/common\//],
  ['Approvals: standing rules', /^src\/workflows\/approvals\/(approval-rule|rule-[a-z-]+|why-it-waits)\.ts$/],
  ['Approvals and history limits', /^src\/workflows\/(goal\/history-limits|approvals\/)/],
  ['Goal decisions', /^src\/workflows\/goal\//],
  ['Principles: hypotheses', /^src\/workflows\/principles\/hypothesis(-guard)?\.ts$/],
  ['Principles: stagnation and loops', /^src\/workflows\/principles\/(stagnation|loop)-guard\.ts$/],
  ['Principles: denials', /^src\/workflows\/principles\/denial-guard\.ts$/],
  ['Principles: budgets', /^src\/workflows\/principles\/budget(-ahead)?\.ts$/],
  ['Principles: cadence', /^src\/workflows\/principles\/(dynamic-)?cadence\.ts$/],
  ['Principles: call intents', /^src\/workflows\/principles\/call-intent\.ts$/],
  ['Principles: progress and cost', /^src\/workflows\/principles\/(progress|cost)\.ts$/],
  ['Principles: checkpoints', /^src\/workflows\/principles\/checkpoint-[a-z]+\.ts$/],
  ['Principles', /^src\/workflows\/principles\//],
  ['Planning', /^src\/workflows\/planning\//],
  ['Activities: the irreversible journal', /^src\/activities\/tools\/irreversible-journal\.ts$/],
  ['Activities: sandbox arguments', /^src\/activities\/tools\/sandbox\//],
  ['Activities: workspace paths', /^src\/activities\//],
  ['Codec: AES-GCM', /^src\/codec\//],
];

/**
 * Surviving mutants no test can kill, by file, line and mutator (the replacement where one line
 * holds several), with why. Checked by hand: each one behaves exactly as the original code.
 */
const EQUIVALENT: readonly Equivalent[] = [
  ...equivalentsOfCodecWorkspaceAndHypothesis,
  ...equivalentsOfBudgetsLoopsPlanningAndShell,
  ...equivalentsOfGoalAndApprovals,
  ...equivalentsOfHypervectorsIntentsAndGuards,
];

const KILLED = new Set(['Killed', 'Timeout']);
const VALID = new Set(['Killed', 'Timeout', 'Survived', 'NoCoverage']);

function main(): void {
  const [input = 'reports/mutation.json', output = 'reports/mutation.md'] = process.argv.slice(2);
  const report = JSON.parse(readFileSync(input, 'utf8')) as Report;
  writeFileSync(output, render(report));
  console.log(`mutation report: ${output}`);
}

function isEquivalent(file: string, mutant: Mutant): string | undefined {
  return EQUIVALENT.find(
    (entry) =>
      entry.file === file &&
      entry.line === mutant.location.start.line &&
      entry.mutator === mutant.mutatorName &&
      (entry.replacement === undefined || entry.replacement === mutant.replacement),
  )?.why;
}

interface Tally {
  killed: number;
  survived: number;
  noCoverage: number;
  equivalent: number;
  valid: number;
}

function tally(files: ReadonlyArray<readonly [string, readonly Mutant[]]>): Tally {
  const result: Tally = { killed: 0, survived: 0, noCoverage: 0, equivalent: 0, valid: 0 };
  for (const [file, mutants] of files) {
    for (const mutant of mutants) {
      if (!VALID.has(mutant.status)) continue;
      result.valid += 1;
      if (KILLED.has(mutant.status)) result.killed += 1;
      else if (isEquivalent(file, mutant) !== undefined) result.equivalent += 1;
      else if (mutant.status === 'NoCoverage') result.noCoverage += 1;
      else result.survived += 1;
    }
  }
  return result;
}

const percent = (part: number, whole: number): string =>
  whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)}%`;

function row(name: string, counts: Tally): string {
  return `| ${name} | ${counts.valid} | ${counts.killed} | ${counts.survived} | ${counts.noCoverage} | ${counts.equivalent} | ${percent(counts.killed, counts.valid)} | ${percent(counts.killed, counts.valid - counts.equivalent)} |`;
}

function render(report: Report): string {
  const files = Object.entries(report.files)
    .map(([file, data]) => [file, data.mutants] as const)
    .sort(([a], [b]) => a.localeCompare(b));
  const header = [
    '| | mutants | killed | survived | no test reaches | equivalent | score | without equivalents |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  const lines: string[] = [
    '# Mutation testing',
    '',
    'Generated by `npm run test:mutation:full` (StrykerJS 9, its tap runner over the unit tests,',
    'its TypeScript checker) with `tsx scripts/mutation-report.ts`: do not edit by hand. "mutants"',
    'counts those that compile; the score is those killed (or timed out) over them.',
    '',
    '## Score per module group',
    '',
    ...header,
  ];
  const groupOf = (file: string): string | undefined => GROUPS.find(([, pattern]) => pattern.test(file))?.[0];
  for (const [name] of GROUPS) {
    const inGroup = files.filter(([file]) => groupOf(file) === name);
    if (inGroup.length > 0) lines.push(row(name, tally(inGroup)));
  }
  lines.push(row('**All**', tally(files)), '', '## Score per file', '', ...header);
  for (const entry of files) lines.push(row(`\`${entry[0]}\``, tally([entry])));

  lines.push('', '## Equivalent mutants', '');
  let equivalents = 0;
  for (const [file, mutants] of files) {
    for (const mutant of mutants) {
      const why =
        VALID.has(mutant.status) && !KILLED.has(mutant.status) ? isEquivalent(file, mutant) : undefined;
      if (why === undefined) continue;
      equivalents += 1;
      lines.push(`- ${describe(file, mutant)}: ${why}`);
    }
  }
  if (equivalents === 0) lines.push('None named.');

  lines.push('', '## Surviving mutants', '');
  let survivors = 0;
  for (const [file, mutants] of files) {
    for (const mutant of mutants) {
      if (!VALID.has(mutant.status) || KILLED.has(mutant.status) || isEquivalent(file, mutant)) continue;
      survivors += 1;
      lines.push(
        `- ${describe(file, mutant)}${mutant.status === 'NoCoverage' ? ' (no test reaches it)' : ''}`,
      );
    }
  }
  if (survivors === 0) lines.push('None.');
  return `${lines.join('\n')}\n`;
}

function describe(file: string, mutant: Mutant): string {
  const replacement = (mutant.replacement ?? '').replace(/\s+/g, ' ').trim();
  const shown = replacement.length > 80 ? `${replacement.slice(0, 77)}...` : replacement;
  return `\`${file}:${mutant.location.start.line}\` ${mutant.mutatorName} → \`${shown.replace(/`/g, "'")}\``;
}

main();
