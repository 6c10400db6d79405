// @ts-check
/**
 * Mutation testing of keel's deciding modules (issue 27): `npm run test:mutation:full` runs every
 * mutant not already in reports/stryker-incremental.json and writes reports/mutation.md;
 * `npm run test:mutation` (scripts/mutation-changed.ts) only the modules changed since then.
 *
 * The tap runner starts each unit test file as its own node process (tsx loads the TypeScript,
 * node:test prints TAP) and records which mutants each file reaches, so a mutant only re-runs the
 * files that load its module. The TypeScript checker drops mutants that would not compile.
 */
import { lstatSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import process from 'node:process';

/**
 * The deciding modules measured so far (reports/mutation.md). Next, one group at a time (a run
 * reuses the results of the files already in reports/stryker-incremental.json): the stagnation,
 * loop and denial guards, the other principles, planning and the goal decisions.
 */
const mutate = [
  // Tools: the shell classifier (read-only or not) and find's grammar.
  'src/workflows/tools/shell-command-classifier.ts',
  'src/workflows/tools/read-only-find.ts',
  // Approvals and history limits.
  'src/workflows/goal/history-limits.ts',
  'src/workflows/approvals/approval-authority.ts',
  // The codec's cipher.
  'src/codec/aes-gcm.ts',
  // Workspace paths: the lexical check, the race-free I/O beneath the root, and run_command's
  // rule that a read-only command names nothing outside the workspace.
  'src/activities/tools/workspace.ts',
  'src/activities/tools/workspace-access/open-beneath.ts',
  'src/workflows/tools/workspace-path-rule.ts',
  // The journal that keeps irreversible calls at most once, and the sandbox's bwrap arguments.
  'src/activities/tools/irreversible-journal.ts',
  'src/activities/tools/sandbox/bubblewrap-arguments.ts',
  // Principles: the hypothesis comparator (principle 1) and the guard on mismatches in a row.
  'src/workflows/principles/hypothesis.ts',
  'src/workflows/principles/hypothesis-guard.ts',
  // The context budget: which blocks are elided and which turns dropped when a transcript is too big.
  'src/workflows/common/context-budget.ts',
  // The budgets: warnings at their fractions, exhaustion at the limit, and the notes' numbers.
  'src/workflows/principles/budget.ts',
];

/**
 * Unit test files that import the mutated code (directly or through the tools' test helpers).
 * The others (CLI launchers, the scripted model server, the web UI) cannot kill a mutant here and
 * would only lengthen the first run that every mutation run starts with.
 */
const reaches = /src\/(workflows|activities\/tools|codec)|tools-test-helpers/;
const testFiles =
  // scripts/mutation-changed.ts narrows this to the files that reach the changed modules.
  process.env.KEEL_MUTATION_TEST_FILES?.split(',') ??
  readdirSync('test/unit')
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => `test/unit/${name}`)
    .filter((file) => reaches.test(readFileSync(file, 'utf8')))
    // Bundles the whole workflow code and replays recorded goals: tens of seconds per mutant,
    // for determinism, which it guards in `npm test`; the rules are the other files' to check.
    .filter((file) => file !== 'test/unit/replay-history.test.ts');

/**
 * Stryker links node_modules into its sandbox only when it is a real directory. In a git worktree
 * whose node_modules is a symbolic link to another checkout's, the sandbox would have none: module
 * resolution still finds the parent's, but a test that names a file under node_modules by path
 * (mcp-filesystem.test.ts starts server-filesystem) fails the first run. So link it there too.
 */
const linkedNodeModules = lstatSync('node_modules', { throwIfNoEntry: false })?.isSymbolicLink()
  ? realpathSync('node_modules')
  : undefined;

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
  tsconfigFile: 'tsconfig.mutation.json',
  // Two cores: one test process per core.
  concurrency: 2,
  timeoutMS: 10000,
  // The first run starts every test file once, instrumented: minutes on two busy cores.
  dryRunTimeoutMinutes: 20,
  // A fresh clone re-tests only mutants whose code or covering tests changed since this file.
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  reporters: ['json', 'clear-text', 'progress'],
  jsonReporter: { fileName: 'reports/mutation.json' },
  clearTextReporter: { allowEmojis: false, logTests: false, reportScoreTable: true },
  ignorePatterns: ['dist', '.keel', 'test-artifacts', 'bench-results', 'reports'],
  tempDirName: '.stryker-tmp',
  ...(linkedNodeModules === undefined
    ? {}
    : // Stryker runs the command without a shell (execa's command form): quotes would stay in the
      // link's target, so spaces are escaped with a backslash instead, the one escape it reads.
      { buildCommand: `ln -s ${linkedNodeModules.replaceAll(' ', '\\ ')} node_modules` }),
  cleanTempDir: 'always',
};
