import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');

// What a user's project gets from `require('keel')`: the built package through its "exports"
// (Node resolves a package's own name from inside it, just as it would from node_modules).
test('npm run build emits the package entry points with types, and they export the public API', () => {
  execFileSync('npm', ['run', '-s', 'build'], { cwd: ROOT, stdio: 'pipe' });
  const probe = `
    const keel = require('keel');
    const workflows = require('keel/workflows');
    console.log(JSON.stringify({
      exports: Object.keys(keel).sort(),
      workflows: Object.keys(workflows),
      workflowsPath: require.resolve('keel/workflows'),
      main: require.resolve('keel'),
    }));`;
  const output = execFileSync(process.execPath, ['-e', probe], { cwd: ROOT, encoding: 'utf8' });
  const loaded = JSON.parse(output) as {
    exports: string[];
    workflows: string[];
    workflowsPath: string;
    main: string;
  };
  assert.equal(loaded.main, path.join(ROOT, 'dist/index.js'));
  assert.equal(loaded.workflowsPath, path.join(ROOT, 'dist/workflows/index.js'));
  assert.deepEqual(loaded.workflows, ['goalWorkflow', 'workerToolsWorkflow']);
  for (const name of [
    'createKeelWorker',
    'runWorker',
    'defineTool',
    'builtinTools',
    'runSandboxedCommand',
    'commandEnvironment',
    'readWorkspaceFile',
    'TemporalCopiesError',
    'WorkerOptionsError',
    'HostClaimError',
    'HostSettingsError',
    'sandboxStatus',
    'toolEscalation',
    'connectClient',
    'startGoal',
    'decideApproval',
    'approveSignal',
    'denySignal',
    'decideApprovalUpdate',
    'goalStatusQuery',
    'ledgerQuery',
  ]) {
    assert.ok(loaded.exports.includes(name), `keel exports ${name}`);
  }
  for (const types of ['dist/index.d.ts', 'dist/workflows/index.d.ts']) {
    assert.ok(existsSync(path.join(ROOT, types)), types);
  }
});
