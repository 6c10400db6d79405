import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { bundleWorkflowCode } from '@temporalio/worker';
import { workflowBundlerOptions } from '../../src/worker/bundle-options';
import { quietLogger } from '../support/quiet-logger';

const WORKFLOWS = path.resolve(__dirname, '../fixtures/bundle-target/workflows.ts');

/** The bundled code of the fixture module, without the inline source map. */
async function bundledFixture(options: object): Promise<string> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS, logger: quietLogger, ...options });
  return code.slice(0, code.lastIndexOf('//# sourceMappingURL='));
}

// Issue 14: the SDK compiles workflow TypeScript to es2017, so a bundle built from src/ ran object
// spreads and optional chains through helpers that a compiled worker's bundle (from dist/, ES2022)
// does not have, and replay took more CPU. If the SDK's bundler configuration changes shape,
// the hook would stop applying without a word: this test notices.
test('workflow TypeScript is bundled as ES2022, as tsc compiles dist/: native spreads, no helpers', async () => {
  const sdkDefault = await bundledFixture({});
  assert.match(sdkDefault, /_object_spread\(/, 'the SDK alone compiles the spread to a helper');
  const keel = await bundledFixture(workflowBundlerOptions);
  assert.doesNotMatch(keel, /_object_spread\(/);
  assert.match(keel, /\.\.\.input/);
  assert.match(keel, /copy\.limits\?\.calls \?\? 0/);
});
