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
 * The deciding modules measured (reports/mutation.md). Add a new one as its own group (a run
 * reuses the results of the files already in reports/stryker-incremental.json). Most of src
 * imports these modules, so the TypeScript checker and the survivors, not the tests, set the pace
 * (the principles and planning: 961 mutants in 50 minutes on two cores). Kill a survivor in a new
 * test file: a changed file that already killed mutants has them all re-tested.
 */
const mutate = [
  // Tools: the shell classifier (read-only or not) and find's grammar.
  'src/workflows/tools/shell-command-classifier.ts',
  'src/workflows/tools/read-only-find.ts',
  // Tools: the words a shell command is split into, and the option parser.
  'src/workflows/tools/shell-words.ts',
  'src/workflows/tools/option-parser.ts',
  // Tiers: what a call no human approved may keep of what it changed in the workspace.
  'src/workflows/tools/workspace-change-policy.ts',
  // Approvals and history limits.
  'src/workflows/goal/lifecycle/history-limits.ts',
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
  // Principles: the guards on calls that bring nothing new, on loops and on denied intents, and
  // the cadence of reflection checkpoints.
  'src/workflows/principles/stagnation-guard.ts',
  'src/workflows/principles/loop-guard.ts',
  'src/workflows/principles/denial-guard.ts',
  'src/workflows/principles/cadence.ts',
  'src/workflows/principles/dynamic-cadence.ts',
  // Planning: the plan and its backtracking, the choice of strategy, the self-assessment.
  'src/workflows/planning/plan.ts',
  'src/workflows/planning/strategy.ts',
  'src/workflows/planning/assessment.ts',
  // The context budget: which blocks are elided and which turns dropped when a transcript is too big,
  // and the tokens a request is expected to hold against the window it may fill.
  'src/workflows/common/context-budget.ts',
  'src/workflows/common/context-tokens.ts',
  // The budgets: warnings at their fractions, exhaustion at the limit, and the notes' numbers.
  'src/workflows/principles/budget.ts',
  // The budget ahead of a model request: a request that alone would cross the token limit.
  'src/workflows/principles/budget-ahead.ts',
  // Goal decisions: a human's answer to an approval, denials remembered, why a goal stops, how
  // it ends, and the discipline notes the model is sent.
  'src/workflows/goal/tool-calls/approval-decision.ts',
  'src/workflows/goal/tool-calls/remembered-denials.ts',
  'src/workflows/goal/model-turn/stop-reasons.ts',
  'src/workflows/goal/lifecycle/ending.ts',
  'src/workflows/goal/oversight/discipline.ts',
  // The approval rules: the patterns a human approves with, the call text they match, the rule
  // book's verdict, rule changes and why a call waits.
  'src/workflows/approvals/approval-rule.ts',
  'src/workflows/approvals/rule-pattern.ts',
  'src/workflows/approvals/rule-subject.ts',
  'src/workflows/approvals/rule-book.ts',
  'src/workflows/approvals/rule-changes.ts',
  'src/workflows/approvals/rule-decisions.ts',
  'src/workflows/approvals/why-it-waits.ts',
  // Principles: the call's stated intent against what it did, progress and cost of the latest
  // calls, the checkpoints' escalation and the parroted checkpoint answer.
  'src/workflows/principles/call-intent.ts',
  'src/workflows/principles/progress.ts',
  'src/workflows/principles/cost.ts',
  'src/workflows/principles/checkpoint-escalation.ts',
  'src/workflows/principles/checkpoint-parrot.ts',
  // Principles: the guards that turn those verdicts into warnings and stops, turn by turn (guards.ts
  // combines them; their settings, their state and each guard's decisions in guards-*.ts), and
  // the principles' state around them (budgets, reflection and the meta notes).
  'src/workflows/principles/guards.ts',
  'src/workflows/principles/guards-settings.ts',
  'src/workflows/principles/guards-state.ts',
  'src/workflows/principles/guards-loop.ts',
  'src/workflows/principles/guards-hypothesis.ts',
  'src/workflows/principles/guards-denial.ts',
  'src/workflows/principles/guards-stagnation.ts',
  'src/workflows/principles/guards-checkpoint.ts',
  'src/workflows/principles/principles.ts',
  // Planning: the plan prompt, earlier turns condensed into one belief (seed 004), and the
  // hypervector encoding of texts that strategy selection compares.
  'src/workflows/planning/plan-prompt.ts',
  'src/workflows/planning/consolidation.ts',
  'src/workflows/planning/hypervector.ts',
  // Tools: the per-command option lists that make a command read-only or not, and git's.
  'src/workflows/tools/read-only-options.ts',
  'src/workflows/tools/read-only-git.ts',
  // Tools: here-documents taken out of a command line, and the rough split of one the tokenizer
  // refuses, both following quotes (call intent reads its targets with them).
  'src/workflows/tools/here-documents.ts',
  'src/workflows/tools/rough-words.ts',
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
 * A mutant stops at the first test file that fails it, in this order: the files named after a
 * mutated module (its own tests and rule tests) go first, so most mutants are killed by one short
 * file instead of after a dozen that cannot see the change. The order decides no verdict.
 */
const ownTestsFirst = (files) => {
  const modules = mutate.map((file) => file.replace(/^.*\//, '').replace(/\.ts$/, ''));
  const own = (file) => modules.some((module) => file.replace(/^.*\//, '').startsWith(module));
  return [...files.filter(own), ...files.filter((file) => !own(file))];
};

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
    testFiles: ownTestsFirst(testFiles),
    // Not `--test`: that would run the file in a child process the coverage hook never sees.
    nodeArgs: ['-r', '{{hookFile}}', '--import', 'tsx', '--test-reporter=tap', '{{testFile}}'],
    forceBail: true,
  },
  coverageAnalysis: 'perTest',
  checkers: ['typescript'],
  tsconfigFile: 'tsconfig.mutation.json',
  // Two cores, and Stryker gives half of the concurrency to TypeScript checkers and half to test
  // runners: with 2, one checker at full load kept the test runner idle most of the time (a mutant
  // is checked against every source file importing its module; its own rule test then kills it
  // in a second). 3 makes two checkers beside one runner; more would only swap.
  concurrency: 3,
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
