import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  ALL_BUNDLE_VARIANTS,
  bundleFileName,
  bundleVariantOf,
  prebuiltWorkflowBundle,
} from '../../src/worker/bundle-file';
import { tempDirectory } from '../support/temp-directory';

const KEY = `k:${randomBytes(32).toString('base64')}`;

test('the bundle a worker needs follows its encryption and tracing, each combination its own file', () => {
  assert.deepEqual(bundleVariantOf({}), { encrypted: false, traced: false });
  assert.deepEqual(bundleVariantOf({ KEEL_ENCRYPTION_KEYS: KEY }), { encrypted: true, traced: false });
  assert.deepEqual(bundleVariantOf({ OTEL_TRACES_EXPORTER: 'console' }), { encrypted: false, traced: true });
  assert.deepEqual(bundleVariantOf({ OTEL_TRACES_EXPORTER: 'none', KEEL_ENCRYPTION_KEYS: KEY }), {
    encrypted: true,
    traced: false,
  });
  const names = ALL_BUNDLE_VARIANTS.map(bundleFileName);
  assert.equal(new Set(names).size, 4);
  assert.equal(bundleFileName({ encrypted: false, traced: false }), 'workflow-bundle.js');
});

test('KEEL_WORKFLOW_BUNDLE_DIR: its bundle for the variant, as it is; none there: undefined, said once', async () => {
  const directory = tempDirectory('keel-bundles-');
  writeFileSync(path.join(directory, 'workflow-bundle.traced.js'), '// built with the image');
  const lines: string[] = [];
  const log = (line: string): void => void lines.push(line);
  const traced = { KEEL_WORKFLOW_BUNDLE_DIR: directory, OTEL_TRACES_EXPORTER: 'console' };
  assert.equal(
    await prebuiltWorkflowBundle({ env: traced, log }),
    path.join(directory, 'workflow-bundle.traced.js'),
  );
  assert.deepEqual(lines, []);
  assert.equal(
    await prebuiltWorkflowBundle({ env: { KEEL_WORKFLOW_BUNDLE_DIR: directory }, log }),
    undefined,
  );
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /no workflow-bundle\.js in KEEL_WORKFLOW_BUNDLE_DIR/);
});

test('the cache: a bundle newer than every source file is loaded, not built again', async () => {
  const cacheDirectory = tempDirectory('keel-bundle-cache-');
  const file = path.join(cacheDirectory, 'workflow-bundle.js');
  writeFileSync(file, '// cached');
  const later = new Date(Date.now() + 60_000); // newer than any file under src/ or dist/
  utimesSync(file, later, later);
  const lines: string[] = [];
  const found = await prebuiltWorkflowBundle({ env: {}, cacheDirectory, log: (line) => lines.push(line) });
  assert.equal(found, file);
  assert.deepEqual(lines, [], 'nothing was built');
});
