// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import { builtinModules } from 'node:module';

// Workflow code runs in Temporal's deterministic sandbox and is replayed from history:
// anything that does I/O or reads the clock/environment there would break replay.
// The glob covers nested folders too (src/workflows/**), which the samples' glob misses.
const forbiddenInWorkflows = [
  ...builtinModules,
  ...builtinModules.map((name) => `node:${name}`),
  '@anthropic-ai/sdk',
  '@temporalio/client',
  '@temporalio/worker',
  '@temporalio/activity',
  'pg',
  'tinyglobby',
  'yaml',
  'commander',
  'picomatch',
  '@modelcontextprotocol/sdk',
];

export default tseslint.config(
  { ignores: ['node_modules/**', 'dist/**', '.keel/**', 'test-artifacts/**', '.stryker-tmp/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
  },
  {
    // A user's project has its own tsconfig.json, where `keel` is the installed package; linted
    // here with the repository's, whose paths map `keel` to the source.
    files: ['examples/own-project/**'],
    languageOptions: {
      parserOptions: {
        projectService: false,
        project: './tsconfig.json',
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
  {
    rules: {
      '@typescript-eslint/consistent-type-imports': 'error',
      '@typescript-eslint/no-floating-promises': [
        'error',
        {
          // node:test tracks the promises its test() and describe() return.
          allowForKnownSafeCalls: [
            { from: 'package', package: 'node:test', name: ['test', 'it', 'describe', 'suite'] },
          ],
        },
      ],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
      '@typescript-eslint/restrict-template-expressions': [
        'error',
        { allowNumber: true, allowBoolean: true },
      ],
    },
  },
  {
    // Tracing's workflow interceptors and the benchmark's comparison workflows run there too.
    files: [
      'src/workflows/**/*.ts',
      'src/tracing/workflow-interceptors.ts',
      'src/tracing/span-attributes.ts',
      'scripts/bench/workflows/**/*.ts',
    ],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: forbiddenInWorkflows.map((name) => ({
            name,
            message: 'Workflow code must stay deterministic: do I/O in an activity under src/activities.',
          })),
        },
      ],
      'no-restricted-globals': [
        'error',
        { name: 'process', message: 'No environment access in workflow code; pass it in the goal input.' },
        { name: 'require', message: 'Import statically so the workflow bundle is known at build time.' },
      ],
    },
  },
  {
    files: ['**/*.mjs', 'bin/**/*.js'],
    ...tseslint.configs.disableTypeChecked,
  },
  {
    // The CLI and worker launchers are plain CommonJS run by Node.
    files: ['bin/**/*.js'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: {
        require: 'readonly',
        process: 'readonly',
        module: 'writable',
        __dirname: 'readonly',
        console: 'readonly',
      },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
