import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

/**
 * Issue 13: every `keel` command took seconds because tsx compiled the CLI at each start and the
 * CLI loaded the Temporal SDK, the worker and the model SDK before parsing its arguments. Timings
 * are no test; what makes them fast is: (1) the launcher runs compiled JavaScript when dist/ is
 * current, and (2) `keel --help` loads none of the heavy modules. `npm run -s bench:cli` measures.
 */

const ROOT = path.resolve(__dirname, '../..');

/** A throwaway checkout: bin/load-keel.js with a probe module in src/ and/or dist/. */
function fakeCheckout(t: { after: (fn: () => void) => void }, parts: { src?: number; dist?: number }) {
  const root = mkdtempSync(path.join(tmpdir(), 'keel-launcher-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(path.join(root, 'bin'));
  copyFileSync(path.join(ROOT, 'bin/load-keel.js'), path.join(root, 'bin/load-keel.js'));
  const write = (file: string, text: string, seconds: number) => {
    mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
    writeFileSync(path.join(root, file), text);
    utimesSync(path.join(root, file), seconds, seconds);
  };
  if (parts.src !== undefined) write('src/probe.ts', "export const from: string = 'src';\n", parts.src);
  if (parts.dist !== undefined) {
    write('dist/index.js', '', parts.dist);
    write('dist/probe.js', "exports.from = 'dist';\n", parts.dist);
  }
  return root;
}

function loadedFrom(root: string): string {
  const loader = JSON.stringify(path.join(root, 'bin/load-keel.js'));
  return execFileSync(process.execPath, ['-p', `require(${loader}).loadKeel('probe').from`], {
    // tsx is found through NODE_PATH, as an installed keel finds it in its node_modules.
    env: { PATH: process.env.PATH, NODE_PATH: path.join(ROOT, 'node_modules') },
    encoding: 'utf8',
  }).trim();
}

test('the launcher runs dist/ when it is current and the source when dist/ is missing or stale', (t) => {
  assert.equal(loadedFrom(fakeCheckout(t, { src: 1_000, dist: 2_000 })), 'dist');
  assert.equal(loadedFrom(fakeCheckout(t, { src: 3_000, dist: 2_000 })), 'src', 'an edit after the build');
  assert.equal(loadedFrom(fakeCheckout(t, { src: 1_000 })), 'src', 'never built');
  assert.equal(loadedFrom(fakeCheckout(t, { dist: 2_000 })), 'dist', 'an installed package: no src/');
});

test('keel --help loads neither the Temporal SDK nor the worker nor the model SDK', () => {
  // Runs the source (tsx) so the test does not depend on a build; dist/ has the same imports.
  const report = execFileSync(
    process.execPath,
    [
      '-e',
      `process.argv = [process.argv[0], 'keel', '--help'];
       const write = process.stdout.write.bind(process.stdout);
       process.stdout.write = () => true; // the help text is not what this test reads
       process.exit = () => {
         const loaded = Object.keys(require.cache);
         const heavy = ['@temporalio/client', '@temporalio/worker', '@anthropic-ai/sdk', '/pg/', '@modelcontextprotocol']
           .filter((name) => loaded.some((file) => file.includes('node_modules/' + name.replace(/^\\//, ''))));
         write(JSON.stringify({ heavy, keel: loaded.some((file) => file.endsWith('cli/main.ts')) }));
       };
       require(${JSON.stringify(path.join(ROOT, 'bin/keel.js'))});`,
    ],
    { env: { ...process.env, KEEL_FROM_SOURCE: '1' }, encoding: 'utf8' },
  );
  const { heavy, keel } = JSON.parse(report) as { heavy: string[]; keel: boolean };
  assert.equal(keel, true, 'the CLI itself was loaded');
  assert.deepEqual(heavy, []);
});

test('before npm install, the launchers say so in one line and exit 1, not with a stack trace', (t) => {
  const run = (root: string) =>
    spawnSync(
      process.execPath,
      ['-e', `require(${JSON.stringify(path.join(root, 'bin/load-keel.js'))}).loadKeel('probe')`],
      {
        env: { PATH: process.env.PATH }, // no NODE_PATH: nothing installed anywhere above the checkout
        encoding: 'utf8',
      },
    );
  const clone = run(fakeCheckout(t, { src: 1_000 })); // the source needs tsx, which is not there
  assert.equal(clone.status, 1);
  assert.match(
    clone.stderr,
    /^keel: dependencies are not installed \(cannot find tsx\/cjs\); run npm install \(or npm ci\) in \/\S+\n$/,
  );
  const installed = fakeCheckout(t, { dist: 2_000 }); // a package whose dependencies are missing
  writeFileSync(path.join(installed, 'dist/probe.js'), "require('commander');\n");
  assert.match(
    run(installed).stderr,
    /^keel: dependencies are not installed \(cannot find commander\);[^\n]*\n$/,
  );
  // keel's own file missing is a broken package, not a missing install: the error as it is.
  writeFileSync(path.join(installed, 'dist/probe.js'), "require('./gone');\n");
  assert.match(run(installed).stderr, /Cannot find module '\.\/gone'/);
});
