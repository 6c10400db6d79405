/**
 * The CI-sized mutation run: only the deciding modules (stryker.config.mjs's `mutate`) whose code
 * or unit tests changed since the committed baseline, reports/stryker-incremental.json.
 *
 *   npm run test:mutation              (tsx scripts/mutation-changed.ts)
 *   npm run test:mutation -- --list    only say which modules and test files it would run
 *   npm run test:mutation -- --update  re-test them into the committed baseline and rewrite
 *                                      reports/mutation.md (then commit both)
 *
 * Nothing changed: it says so and exits 0 in a second. Otherwise Stryker runs on the changed
 * modules alone, with only the unit test files that import them (directly or not), so its first
 * run takes seconds instead of minutes, and its incremental mode re-tests only the mutants whose
 * code or covering tests changed (a copy of the baseline is used: the committed one stays as it
 * is). Stryker's exit code is passed on: a score under the config's break threshold fails CI.
 */
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { glob } from 'tinyglobby';

const BASELINE = 'reports/stryker-incremental.json';
const COPY = '.stryker-tmp/incremental-changed.json';

/** The part of stryker.config.mjs read here. */
interface MutationConfig {
  mutate: string[];
  tap: { testFiles: string[] };
}

interface Baseline {
  files: Record<string, { source: string }>;
  testFiles?: Record<string, { source?: string }>;
}

async function main(): Promise<void> {
  if (!existsSync(BASELINE)) {
    console.error(`mutation: no baseline at ${BASELINE}; run \`npm run test:mutation\` once and commit it`);
    process.exit(1);
  }
  const baseline = JSON.parse(readFileSync(BASELINE, 'utf8')) as Baseline;
  const configPath = '../stryker.config.mjs'; // plain JavaScript: loaded, not type-checked
  const config = ((await import(configPath)) as { default: MutationConfig }).default;
  const mutate = await glob(config.mutate, { ignore: ['node_modules/**'] });
  const testFiles = config.tap.testFiles;

  const changedModules = mutate.filter((file) => baseline.files[file]?.source !== readFileSync(file, 'utf8'));
  const changedTests = testFiles.filter(
    (file) => baseline.testFiles?.[file]?.source !== readFileSync(file, 'utf8'),
  );
  const reach = new Map(testFiles.map((file) => [file, importsOf(file)]));
  // A changed test file can kill or spare the mutants of any module it reaches.
  const changed = new Set(changedModules);
  for (const file of changedTests)
    for (const module of mutate) if (reach.get(file)?.has(module)) changed.add(module);

  if (changed.size === 0) {
    console.log(`mutation: no deciding module or its unit tests changed since ${BASELINE}`);
    return;
  }
  const tests = testFiles.filter((file) => [...changed].some((module) => reach.get(file)?.has(module)));
  console.log(`mutation: ${changed.size} changed module(s), ${tests.length} unit test file(s) reach them`);
  for (const module of [...changed].sort()) console.log(`  ${module}`);
  if (process.argv.includes('--list')) return; // what would run, for a look before a long run

  const environment = { ...process.env, KEEL_MUTATION_TEST_FILES: tests.join(',') };
  if (process.argv.includes('--update')) {
    // The baseline itself, and the report from it: what to commit after changing a deciding module.
    const run = spawnSync('npx', ['stryker', 'run', '--mutate', [...changed].join(',')], {
      stdio: 'inherit',
      env: environment,
    });
    if (run.status !== 0) process.exit(run.status ?? 1);
    const report = spawnSync('npx', ['tsx', 'scripts/mutation-report.ts'], { stdio: 'inherit' });
    process.exit(report.status ?? 1);
  }
  mkdirSync(path.dirname(COPY), { recursive: true });
  copyFileSync(BASELINE, COPY);
  const result = spawnSync(
    'npx',
    [
      'stryker',
      'run',
      '--mutate',
      [...changed].join(','),
      '--incrementalFile',
      COPY,
      '--reporters',
      'clear-text,progress',
    ],
    { stdio: 'inherit', env: environment },
  );
  process.exit(result.status ?? 1);
}

/** The repository's TypeScript files a file imports, directly or through others. */
function importsOf(file: string): Set<string> {
  const seen = new Set<string>();
  const pending = [file];
  for (let current = pending.pop(); current !== undefined; current = pending.pop()) {
    const text = readFileSync(current, 'utf8');
    for (const match of text.matchAll(/(?:from|import\(|require\()\s*'(\.{1,2}\/[^']+)'/g)) {
      const resolved = resolveImport(current, match[1] as string);
      if (resolved === undefined || seen.has(resolved)) continue;
      seen.add(resolved);
      pending.push(resolved);
    }
  }
  return seen;
}

function resolveImport(from: string, specifier: string): string | undefined {
  const base = path.posix.join(path.posix.dirname(from), specifier);
  return [base, `${base}.ts`, `${base}/index.ts`].find(
    (candidate) => candidate.endsWith('.ts') && existsSync(candidate),
  );
}

main().catch((error: unknown) => {
  console.error(`mutation: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
