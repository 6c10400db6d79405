import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { writeWorkflowBundles } from '../../src/worker/bundle-file';

// No Docker engine runs where keel is tested, so the Dockerfile's structure is checked instead
// (docker-compose.test.ts does the same for the compose file).
const ROOT = path.resolve(__dirname, '../..');
const dockerfile = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8');
// Instructions with their continuation lines joined, comments left out.
const instructions = dockerfile
  .replace(/\\\n/g, ' ')
  .split('\n')
  .map((line) => line.trim())
  .filter((line) => line !== '' && !line.startsWith('#'));
const stages = instructions.reduce<string[][]>((all, line) => {
  if (line.startsWith('FROM ')) all.push([]);
  all.at(-1)?.push(line);
  return all;
}, []);
const [build, runtime] = stages;

test('the image is a build stage and a runtime stage', () => {
  assert.equal(stages.length, 2);
  assert.match(build?.[0] ?? '', /^FROM \S+ AS build$/);
});

test('the workflow bundles are built with the image, after the TypeScript, and the worker is told where', () => {
  const compile = build?.findIndex((line) => line === 'RUN npm run build') ?? -1;
  // dist/worker/bundle-file.js is src/worker/bundle-file.ts compiled: the function is its own.
  const writes =
    /^RUN node -e "require\('\.\/dist\/workflow-bundle-file'\)\.writeWorkflowBundles\('([^']+)'\)"$/;
  const bundle = build?.findIndex((line) => writes.test(line)) ?? -1;
  assert.equal(typeof writeWorkflowBundles, 'function');
  assert.ok(compile >= 0, 'the build stage compiles');
  assert.ok(bundle > compile, 'bundles are built from the compiled workflows');
  const directory = writes.exec(build?.[bundle] ?? '')?.[1];
  assert.ok(directory?.startsWith('/'), `an absolute directory: ${directory}`);
  assert.ok(
    runtime?.some((line) => new RegExp(`^COPY --from=build ${directory} `).test(line)),
    'the runtime stage copies the bundles',
  );
  const copied = runtime?.find((line) => line.startsWith(`COPY --from=build ${directory} `))?.split(' ')[3];
  const target = path.posix.resolve('/app', copied ?? '');
  // Without this the worker would bundle at every container start (seconds; docs/performance.md).
  assert.ok(runtime?.includes(`ENV KEEL_WORKFLOW_BUNDLE_DIR=${target}`), runtime?.join('\n'));
  // A bundle in the image's variable would override the directory's choice by encryption and tracing.
  assert.ok(!runtime?.some((line) => /KEEL_WORKFLOW_BUNDLE=/.test(line)));
});

test('the container runs the worker with node, the launcher that picks the prebuilt bundle', () => {
  assert.equal(runtime?.at(-1), 'CMD ["node", "bin/keel-worker.js"]');
  assert.match(readFileSync(path.join(ROOT, 'bin/keel-worker.js'), 'utf8'), /prebuiltWorkflowBundle/);
});
