// @ts-check
/**
 * Mutation testing of keel's deciding modules (issue 27): `npm run test:mutation`.
 *
 * The tap runner starts each unit test file as its own node process (tsx loads the TypeScript,
 * node:test prints TAP) and records which mutants each file reaches, so a mutant only re-runs the
 * files that load its module. The TypeScript checker drops mutants that would not compile.
 */
import { readdirSync, readFileSync } from 'node:fs';

/** Modules that decide what the agent may do, and the activities that guard side effects. */
const mutate = [
  'src/workflows/principles/**/*.ts',
  'src/workflows/planning/**/*.ts',
  'src/workflows/tools/**/*.ts',
  'src/workflows/common/context-budget.ts',
  'src/workflows/common/structured-output.ts',
  'src/workflows/goal/history-limits.ts',
  'src/workflows/goal/approval-authority.ts',
  'src/workflows/goal/approval-decision.ts',
  'src/workflows/goal/approval-policy.ts',
  'src/workflows/goal/remembered-denials.ts',
  'src/activities/tools/workspace.ts',
  'src/activities/tools/workspace-access/open-beneath.ts',
  'src/activities/tools/irreversible-journal.ts',
  'src/activities/tools/sandbox/bubblewrap-arguments.ts',
  'src/codec/aes-gcm.ts',
  'src/codec/encryption-codec.ts',
  'src/codec/encryption-keys.ts',
];

/**
 * Unit test files that import the mutated code (directly or through the tools' test helpers).
 * The others (CLI launchers, the scripted model server, the web UI) cannot kill a mutant here and
 * would only lengthen the first run that every mutation run starts with.
 */
const reaches = /src\/(workflows|activities\/tools|codec)|tools-test-helpers/;
const testFiles = readdirSync('test/unit')
  .filter((name) => name.endsWith('.test.ts'))
  .map((name) => `test/unit/${name}`)
  .filter((file) => reaches.test(readFileSync(file, 'utf8')));

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  mutate,
  testRunner: 'tap',
  tap: {
    testFiles,
    // Not `--test`: that would run the file in a child process the coverage hook never sees.
    nodeArgs: ['-r', '{{hookFile}}', '--import', 'tsx', '--test-reporter=tap', '{{testFile}}'],
    forceBail: true,
  },
  coverageAnalysis: 'perTest',
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.json',
  // Two cores: one test process per core.
  concurrency: 2,
  timeoutMS: 10000,
  // A fresh clone re-tests only mutants whose code or covering tests changed since this file.
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  reporters: ['json', 'clear-text', 'progress'],
  jsonReporter: { fileName: 'reports/mutation.json' },
  clearTextReporter: { allowEmojis: false, logTests: false, reportScoreTable: true },
  ignorePatterns: ['dist', '.keel', 'test-artifacts', 'bench-results', 'reports'],
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
