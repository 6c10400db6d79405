import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDirectory } from '../support/temp-directory';
import {
  DEFAULT_MAX_CONCURRENT_ACTIVITIES,
  DEFAULT_MAX_CONCURRENT_WORKFLOWS,
  defaultHostId,
  hostSettings,
  HostSettingsError,
} from '../../src/config/host-settings';

test('by default: the hostname as host id, any workspace path, 20 activities and 40 workflow tasks', () => {
  assert.deepEqual(hostSettings({}, {}, 'build-box'), {
    hostId: 'build-box',
    workspaceRoots: [],
    maxConcurrentActivities: DEFAULT_MAX_CONCURRENT_ACTIVITIES,
    maxConcurrentWorkflows: DEFAULT_MAX_CONCURRENT_WORKFLOWS,
    replica: false,
  });
  assert.equal(DEFAULT_MAX_CONCURRENT_ACTIVITIES, 20);
});

test('a hostname a host id cannot hold is made into one', () => {
  assert.equal(defaultHostId("Jane's MacBook Pro.local"), 'Jane-s-MacBook-Pro.local');
  assert.equal(defaultHostId('_under'), 'under');
  assert.equal(defaultHostId('x'.repeat(80)), 'x'.repeat(63));
  assert.equal(defaultHostId('---'), 'host');
});

test('the environment sets what the options leave open; the options win', () => {
  const base = tempDirectory('keel-host-settings-');
  for (const name of ['a', 'b']) mkdirSync(path.join(base, name));
  const env = {
    KEEL_HOST_ID: 'from-env',
    KEEL_WORKSPACE_ROOTS: `${base}/a::${base}/b/`,
    KEEL_MAX_CONCURRENT_ACTIVITIES: '5',
    KEEL_MAX_CONCURRENT_WORKFLOWS: '7',
    KEEL_HOST_REPLICA: '1',
  };
  assert.deepEqual(hostSettings({}, env, 'm'), {
    hostId: 'from-env',
    workspaceRoots: [path.join(base, 'a'), path.join(base, 'b')],
    maxConcurrentActivities: 5,
    maxConcurrentWorkflows: 7,
    replica: true,
  });
  assert.deepEqual(
    hostSettings(
      {
        hostId: 'opt',
        workspaceRoots: [],
        maxConcurrentActivities: 2,
        maxConcurrentWorkflows: 3,
        replica: false,
      },
      env,
      'm',
    ),
    {
      hostId: 'opt',
      workspaceRoots: [],
      maxConcurrentActivities: 2,
      maxConcurrentWorkflows: 3,
      replica: false,
    },
  );
});

test('a bad host id, root or number is one line naming the variable or option', () => {
  const fails = (pattern: RegExp, ...args: Parameters<typeof hostSettings>) =>
    assert.throws(
      () => hostSettings(...args),
      (error: unknown) => {
        assert.ok(error instanceof HostSettingsError);
        assert.match(error.message, pattern);
        assert.doesNotMatch(error.message, /\n/);
        return true;
      },
    );
  fails(/^KEEL_HOST_ID is "bad id": a host id is 1-63 letters/, {}, { KEEL_HOST_ID: 'bad id' });
  fails(/^the hostId option is "a@b"/, { hostId: 'a@b' }, {});
  fails(
    /^KEEL_WORKSPACE_ROOTS .*"relative\/dir" is not an absolute path/,
    {},
    { KEEL_WORKSPACE_ROOTS: '/ok:relative/dir' },
  );
  fails(
    /^the workspaceRoots option \(--workspace-root\): workspace root "\." /,
    { workspaceRoots: ['.'] },
    {},
  );
  const base = tempDirectory('keel-host-settings-');
  writeFileSync(path.join(base, 'file'), '');
  fails(
    /^KEEL_WORKSPACE_ROOTS .*workspace root ".*\/missing" does not exist$/,
    {},
    { KEEL_WORKSPACE_ROOTS: `${base}:${base}/missing` },
  );
  fails(
    /^the workspaceRoots option \(--workspace-root\): workspace root ".*\/file" is not a directory$/,
    { workspaceRoots: [`${base}/file`] },
    {},
  );
  fails(
    /^KEEL_MAX_CONCURRENT_ACTIVITIES must be a positive whole number, got "0"/,
    {},
    { KEEL_MAX_CONCURRENT_ACTIVITIES: '0' },
  );
  fails(
    /^KEEL_MAX_CONCURRENT_WORKFLOWS must be a positive whole number, got "1.5"/,
    {},
    { KEEL_MAX_CONCURRENT_WORKFLOWS: '1.5' },
  );
  fails(/^KEEL_HOST_REPLICA must be 1 or 0 .*"yes please"/, {}, { KEEL_HOST_REPLICA: 'yes please' });
  fails(/^KEEL_MAX_CONCURRENT_ACTIVITIES .*"many"/, {}, { KEEL_MAX_CONCURRENT_ACTIVITIES: 'many' });
  fails(
    /^the maxConcurrentWorkflows option must be a positive whole number, got -1/,
    { maxConcurrentWorkflows: -1 },
    {},
  );
});

test('empty variables count as unset', () => {
  const settings = hostSettings(
    {},
    { KEEL_HOST_ID: ' ', KEEL_WORKSPACE_ROOTS: '', KEEL_MAX_CONCURRENT_ACTIVITIES: '' },
    'm1',
  );
  assert.equal(settings.hostId, 'm1');
  assert.deepEqual(settings.workspaceRoots, []);
  assert.equal(settings.maxConcurrentActivities, 20);
});
