import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultReflectionDirectory } from '../../src/activities/reflection-store/file-reflection-store';
import { KeelConfigError } from '../../src/config/keel-config';
import { reflectionStoreSettings } from '../../src/config/reflection-store-settings';

/** A folder with a keel.config.yaml (and a sibling folder to run from), removed after the test. */
function project(t: { after: (fn: () => void) => void }, yaml: string) {
  const root = mkdtempSync(path.join(tmpdir(), 'keel-store-settings-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const configDirectory = path.join(root, 'project');
  const elsewhere = path.join(root, 'elsewhere');
  mkdirSync(configDirectory);
  mkdirSync(elsewhere);
  writeFileSync(path.join(configDirectory, 'keel.config.yaml'), yaml);
  return { root, configDirectory, elsewhere, configFile: path.join(configDirectory, 'keel.config.yaml') };
}

test('no file, no variables: the default file store, and the description says why', (t) => {
  const { elsewhere } = project(t, '');
  const settings = reflectionStoreSettings({ cwd: elsewhere, env: {} });
  assert.deepEqual(settings.config, { kind: 'file', directory: defaultReflectionDirectory() });
  assert.equal(
    settings.description,
    `file store ${defaultReflectionDirectory()} (the default: KEEL_REFLECTION_DIR is unset and there is no keel.config.yaml in ${elsewhere} (nor KEEL_CONFIG))`,
  );
});

test('the config file names the store; its relative directory is relative to the file, from any cwd', (t) => {
  const { configDirectory, elsewhere, configFile } = project(
    t,
    'reflectionStore:\n  kind: file\n  directory: ./notes\n',
  );
  const expected = { kind: 'file', directory: path.join(configDirectory, 'notes') };
  const inCwd = reflectionStoreSettings({ cwd: configDirectory, env: {} });
  assert.deepEqual(inCwd.config, expected);
  assert.match(inCwd.description, /\(reflectionStore in keel\.config\.yaml\)$/);
  const named = reflectionStoreSettings({ cwd: elsewhere, env: { KEEL_CONFIG: configFile } });
  assert.deepEqual(named.config, expected, 'KEEL_CONFIG from another directory finds the same store');
});

test('a variable wins over the file', (t) => {
  const { configDirectory } = project(t, 'reflectionStore:\n  kind: file\n  directory: ./notes\n');
  const settings = reflectionStoreSettings({
    cwd: configDirectory,
    env: { KEEL_REFLECTION_DIR: 'other' },
  });
  assert.deepEqual(settings.config, { kind: 'file', directory: path.join(configDirectory, 'other') });
  assert.match(settings.description, /\(KEEL_REFLECTION_DIR\)$/);
  const memory = reflectionStoreSettings({ cwd: configDirectory, env: { KEEL_REFLECTION_STORE: 'memory' } });
  assert.deepEqual(memory.config, { kind: 'memory' });
});

test('postgres: the URL stays in the environment and its password is never described', (t) => {
  const { configDirectory } = project(t, 'reflectionStore:\n  kind: postgres\n');
  const settings = reflectionStoreSettings({
    cwd: configDirectory,
    env: { KEEL_REFLECTION_DATABASE_URL: 'postgresql://keel:s3cret@db:5432/keel' },
  });
  assert.deepEqual(settings.config, {
    kind: 'postgres',
    connectionString: 'postgresql://keel:s3cret@db:5432/keel',
  });
  assert.doesNotMatch(settings.description, /s3cret/);
  assert.match(settings.description, /postgres store postgresql:\/\/keel@db:5432\/keel/);
});

test('a bad section is one line naming the key', (t) => {
  const { configDirectory } = project(t, 'reflectionStore:\n  kind: sqlite\n');
  assert.throws(
    () => reflectionStoreSettings({ cwd: configDirectory, env: {} }),
    (error: Error) => error instanceof KeelConfigError && /reflectionStore\.kind/.test(error.message),
  );
  const typo = project(t, 'reflectionStore:\n  kind: file\n  dir: x\n');
  assert.throws(() => reflectionStoreSettings({ cwd: typo.configDirectory, env: {} }), /unknown key "dir"/);
});
