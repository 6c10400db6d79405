import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { temporal } from '@temporalio/proto';
import { bundleWorkflowCode, DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import { dataConverterFromEnv } from '../../src/codec/data-converter';
import { WORKFLOWS_PATH } from '../../src/worker';
import { workflowBundlerOptions } from '../../src/worker/bundle-options';
import { quietLogger } from '../support/quiet-logger';

Runtime.install({ logger: new DefaultLogger('WARN') });

const ED25519 = path.resolve(__dirname, '../../src/workflows/common/ed25519.ts');
/** Packages a preloaded module may import: their module state was read (worker/bundle-options.ts). */
const READ_PACKAGES = ['@noble/curves/'];

// Issue 41: the modules every goal of a reusable V8 context shares instead of evaluating them anew.
test('the bundle options preload the module that imports @noble/curves', () => {
  assert.deepEqual(workflowBundlerOptions.preloadModules, [ED25519]);
});

// A preloaded module is evaluated once, before any goal exists, and then shared by every goal the
// context runs: module-scope state would carry from one goal to the next, and a workflow API
// called at module scope has no goal to answer for. This reads each preloaded keel module's top
// level: only imports of read packages or types, and constants that are functions or literals.
test('a preloaded module keeps nothing at module scope that a goal could change', () => {
  for (const file of workflowBundlerOptions.preloadModules) {
    assert.deepEqual(
      moduleScopeState(readFileSync(file, 'utf8')),
      [],
      `${path.basename(file)}'s module scope`,
    );
  }
});

test('the module-scope reading sees state and workflow calls', () => {
  const found = moduleScopeState(`
    import { workflowInfo } from '@temporalio/workflow';
    import type { Duration } from '@temporalio/common';
    import { ed25519 } from '@noble/curves/ed25519.js';
    let verified = 0;
    const seen = new Map<string, boolean>();
    export const keys: string[] = [];
    export const verify = (a: string) => a.length > 0;
    export const scheme = 'ed25519';
    export type Key = string;
    register(verify);
  `);
  assert.deepEqual(found, [
    "imports '@temporalio/workflow'",
    'let verified = 0;',
    'seen = new Map<string, boolean>()',
    'keys: string[] = []',
    'register(verify);',
  ]);
});

// With the preload, every goal of a context runs the verifier its context loaded before any goal
// existed, and the SDK froze it then; replaying each recorded goal twice in one replay worker has
// the second copy run in a context the first one used. A module that webpack dropped from the
// preload (a package marked side-effect free, named directly) would be evaluated per goal again.
test('the recorded goals replay twice over in one context with the preloaded modules', async () => {
  const dataConverter = dataConverterFromEnv();
  const bundle = await bundleWorkflowCode({
    workflowsPath: WORKFLOWS_PATH,
    ...workflowBundlerOptions,
    failureConverterPath: dataConverter.failureConverterPath,
    payloadConverterPath: dataConverter.payloadConverterPath,
    logger: quietLogger,
  });
  const preload =
    /exports\.preloadModules = function preloadModules\(\) \{([^}]*)\}/.exec(bundle.code)?.[1] ?? '';
  assert.match(preload, /__webpack_require__\([^)]*"\.\/src\/workflows\/common\/ed25519\.ts"\)/);
  const directory = path.resolve(__dirname, '../fixtures/histories');
  const histories = readdirSync(directory)
    .filter((file) => file.endsWith('.json'))
    .map((file) => ({
      file,
      history: temporal.api.history.v1.History.fromObject(
        JSON.parse(readFileSync(path.join(directory, file), 'utf8')) as Record<string, unknown>,
      ),
    }));
  assert.ok(histories.length >= 3, 'the committed histories');
  const twice = [...histories, ...histories].map((entry, index) => ({
    workflowId: `${entry.file}-${index}`,
    history: entry.history,
  }));
  const failures: string[] = [];
  for await (const result of Worker.runReplayHistories({ workflowBundle: bundle, dataConverter }, twice)) {
    if (result.error) failures.push(`${result.workflowId}: ${result.error.message.slice(0, 300)}`);
  }
  assert.deepEqual(failures, []);
});

/** The top-level statements of a module that could hold or change state, as source text. */
function moduleScopeState(source: string): string[] {
  const file = ts.createSourceFile('module.ts', source, ts.ScriptTarget.ES2022, true);
  const found: string[] = [];
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) {
      const from = (statement.moduleSpecifier as ts.StringLiteral).text;
      const typeOnly = statement.importClause?.isTypeOnly === true;
      if (!typeOnly && !READ_PACKAGES.some((name) => from.startsWith(name))) found.push(`imports '${from}'`);
    } else if (ts.isVariableStatement(statement)) {
      if ((statement.declarationList.flags & ts.NodeFlags.Const) === 0) {
        found.push(statement.getText());
        continue;
      }
      for (const declaration of statement.declarationList.declarations) {
        const value = declaration.initializer;
        // A function or a primitive literal cannot be changed; anything else (an object, an array,
        // a Map, a call's result) could be.
        const fixed =
          value !== undefined &&
          (ts.isArrowFunction(value) ||
            ts.isFunctionExpression(value) ||
            ts.isStringLiteral(value) ||
            ts.isNoSubstitutionTemplateLiteral(value) ||
            ts.isNumericLiteral(value));
        if (!fixed) found.push(declaration.getText());
      }
    } else if (!ts.isTypeAliasDeclaration(statement) && !ts.isInterfaceDeclaration(statement)) {
      if (!ts.isFunctionDeclaration(statement)) found.push(statement.getText());
    }
  }
  return found;
}
