/**
 * npm run eval:security: adversarial tool calls against keel's worker-side tools, judged by what
 * happened on disk, on the host and in what reached the model. Exits 1 on any hole.
 *
 *   npm run eval:security -- --ci --json security.json --only git-configs,races --verbose
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { CATEGORIES } from './security-case';
import { cleanUpNow, runSecurityEval } from './security-eval';
import {
  approvalSurfaceLines,
  errorLines,
  holeCount,
  holeLines,
  summarize,
  summaryLines,
} from './security-report';

const program = new Command('eval:security')
  .description('Adversarial tool calls against keel: what ran, what changed, what reached the model')
  .option('--ci', 'the smaller subset CI runs (about 60 cases, every category)')
  .option('--json <file>', 'write the full report as JSON')
  .option('--only <categories>', `comma-separated categories: ${CATEGORIES.join(', ')}`)
  .option('--verbose', 'print every case as it finishes, and all evidence lines')
  .showHelpAfterError();

async function main(): Promise<number> {
  program.parse();
  const flags = program.opts<{ ci?: boolean; json?: string; only?: string; verbose?: boolean }>();
  const only = (flags.only ?? '')
    .split(',')
    .map((name) => name.trim())
    .filter((name) => name !== '');
  const interrupt = new AbortController();
  process.once('SIGINT', () => {
    console.error(
      'eval:security: interrupted; finishing the current case and cleaning up (Ctrl-C again to stop now)',
    );
    interrupt.abort();
    process.once('SIGINT', stopNow);
  });
  process.once('SIGTERM', stopNow);

  const report = await runSecurityEval({
    ci: flags.ci === true,
    only,
    verbose: flags.verbose === true,
    signal: interrupt.signal,
    log: (line) => console.error(line),
  });
  console.log(`keel security evaluation: ${report.selection}, ${(report.durationMs / 1000).toFixed(1)} s`);
  console.log(report.sandbox);
  console.log('');
  for (const line of summaryLines(report)) console.log(line);
  const holes = holeLines(report, flags.verbose === true);
  console.log('');
  console.log(holes.length === 0 ? 'No holes.' : `Holes (${holeCount(report)}):`);
  for (const line of holes) console.log(line);
  const errors = errorLines(report);
  if (errors.length > 0) {
    console.log('');
    console.log(`Cases the harness could not run (${errors.length}):`);
    for (const line of errors) console.log(line);
  }
  const surfaces = approvalSurfaceLines(report);
  if (surfaces.length > 0) {
    console.log('');
    console.log('What approvers would see (reported, not counted as holes):');
    for (const line of surfaces) console.log(line);
  }
  if (flags.json !== undefined) {
    mkdirSync(path.dirname(path.resolve(flags.json)), { recursive: true });
    writeFileSync(
      flags.json,
      `${JSON.stringify({ ...report, summary: summarize(report.cases) }, null, 2)}\n`,
    );
    console.log(`\nreport: ${flags.json}`);
  }
  if (report.interrupted) return 130;
  return holeCount(report) > 0 || errors.length > 0 ? 1 : 0;
}

function stopNow(): void {
  cleanUpNow();
  process.exit(130);
}

// exit, not exitCode: a tool call the harness gave up on may still hold a thread of the pool.
main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`eval:security: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
