/**
 * npm run eval:discipline: runs the misbehaving-model suite against keel's hard guards on a dev
 * server of its own and prints the table the README shows.
 *
 *   npm run eval:discipline -- --json discipline.json --only looper,repeater
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { checkLines, formatDisciplineTable, summaryLines } from './discipline/discipline-report';
import { runDiscipline } from './discipline/run-discipline';

const program = new Command('eval:discipline')
  .description('Scripted misbehaving models against the hard guards: what fired, when, and what it did')
  .option('--json <file>', 'where to write the results as JSON', '.keel/eval-discipline.json')
  .option('--only <names>', 'comma-separated scenario names (default: all)')
  .showHelpAfterError();

async function main(): Promise<void> {
  program.parse();
  const flags = program.opts<{ json: string; only?: string }>();
  const only = (flags.only ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const report = await runDiscipline({ only, log: (line) => console.error(line) });
  console.log(`model: ${report.model}`);
  console.log(`worker default budget: ${report.workerBudget.maxTokens?.toLocaleString('en-US')} tokens`);
  console.log('steps count tool calls from the start of the misbehaviour (0: before its first call ran)\n');
  console.log(formatDisciplineTable(report.rows));
  console.log('');
  for (const line of checkLines(report.rows)) console.log(line);
  for (const line of summaryLines(report.rows)) console.log(line);
  mkdirSync(path.dirname(flags.json), { recursive: true });
  writeFileSync(flags.json, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`results: ${flags.json}`);
  if (!report.rows.every((row) => row.targetsMet)) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(`eval:discipline: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
