import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, lstatSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { layerOversize } from '../../src/activities/tools/layers/layer-size';
import { tempDirectory } from '../support/temp-directory';

/**
 * A layer is measured whole even where the command left a directory unreadable (chmod 000), and
 * is left with the modes it had: the capture that runs next applies the modes it reads.
 */

const NOBODY = 65534;
const SETPRIV = '/usr/bin/setpriv';
const LIMITS = { maxBytes: 10, maxEntries: 100, fileSizeLimit: 1_000_000 };

/** An upper directory holding locked/ (mode 000) with 20 bytes inside it: over a 10-byte limit. */
function lockedLayer(owner?: number): { upper: string; locked: string } {
  const base = tempDirectory('keel-layer-size-');
  chmodSync(base, 0o755);
  const upper = path.join(base, 'upper');
  const locked = path.join(upper, 'locked');
  mkdirSync(path.join(locked, 'deeper'), { recursive: true });
  writeFileSync(path.join(locked, 'deeper', 'data.bin'), 'x'.repeat(20));
  if (owner !== undefined)
    for (const entry of [upper, locked, path.join(locked, 'deeper'), path.join(locked, 'deeper', 'data.bin')])
      chownSync(entry, owner, owner);
  chmodSync(path.join(locked, 'deeper'), 0o000);
  chmodSync(locked, 0o000);
  return { upper, locked };
}

test('a directory the command made unreadable is measured, and keeps its mode', async () => {
  const { upper, locked } = lockedLayer();
  assert.match((await layerOversize({ upper, ...LIMITS })) ?? '', /it wrote more than 10 bytes/);
  assert.equal(lstatSync(locked).mode & 0o7777, 0);
  assert.equal(await layerOversize({ upper, ...LIMITS, maxBytes: 1000 }), undefined);
  assert.equal(lstatSync(locked).mode & 0o7777, 0);
});

// Root reads a mode-000 directory anyway: the worker that meets EACCES is a non-root one, so the
// walk runs as one (nobody, through setpriv) when the tests run as root.
const asRoot = process.getuid?.() === 0;
test('a non-root worker measures a chmod 000 directory instead of failing on EACCES', async () => {
  const { upper, locked } = lockedLayer(asRoot ? NOBODY : undefined);
  const reason = asRoot ? oversizeAsNobody(upper) : await layerOversize({ upper, ...LIMITS });
  assert.match(reason ?? '', /it wrote more than 10 bytes/);
  assert.equal(lstatSync(locked).mode & 0o7777, 0, 'the mode is put back for the capture');
  assert.equal(lstatSync(path.join(locked, 'deeper')).mode & 0o7777, 0);
  chmodSync(locked, 0o700); // so the temp directory can be removed by a non-root run
  chmodSync(path.join(locked, 'deeper'), 0o700);
});

function oversizeAsNobody(upper: string): string | undefined {
  const script = `
    const { layerOversize } = require('./src/activities/tools/layers/layer-size.ts');
    layerOversize({ upper: process.argv[1], ...JSON.parse(process.argv[2]) }).then(
      (reason) => process.stdout.write(JSON.stringify({ reason })),
      (error) => process.stdout.write(JSON.stringify({ error: String(error) })),
    );`;
  const output = execFileSync(
    SETPRIV,
    [
      `--reuid=${NOBODY}`,
      `--regid=${NOBODY}`,
      '--clear-groups',
      process.execPath,
      '--import',
      'tsx',
      '-e',
      script,
      upper,
      JSON.stringify(LIMITS),
    ],
    { cwd: path.resolve(__dirname, '../..'), env: { ...process.env, HOME: '/tmp' }, encoding: 'utf8' },
  );
  const result = JSON.parse(output) as { reason?: string; error?: string };
  assert.equal(result.error, undefined, result.error);
  return result.reason;
}
