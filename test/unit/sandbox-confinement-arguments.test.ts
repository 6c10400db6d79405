import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ApplicationFailure } from '@temporalio/common';
import {
  hostAddresses,
  isolatedNetworkLauncher,
  NETWORK_ISOLATION_UNAVAILABLE,
  NETWORK_LAUNCHER_SCRIPT,
} from '../../src/activities/tools/sandbox/network-isolation';
import {
  DEFAULT_RESOURCE_LIMITS,
  enforcedFileSizeBytes,
  resourceLimitsFromEnv,
  ulimitArguments,
} from '../../src/activities/tools/sandbox/resource-limits';
import { CONFINE_SCRIPT, confinementPrefix } from '../../src/activities/tools/sandbox/confinement';
import type { SandboxStatus } from '../../src/activities/tools/sandbox/sandbox-status';

const ISOLATION = {
  available: true,
  unshare: '/u/unshare',
  slirp4netns: '/u/slirp4netns',
  ip: '/u/ip',
} as const;
const STATUS: Extract<SandboxStatus, { mode: 'bubblewrap' }> = {
  mode: 'bubblewrap',
  executable: '/u/bwrap',
  layers: { available: false, reason: 'test' },
  network: ISOLATION,
  limits: DEFAULT_RESOURCE_LIMITS,
};

test('resource limits: defaults, each variable replaces its own, K/M/G suffixes', () => {
  assert.deepEqual(resourceLimitsFromEnv({}), DEFAULT_RESOURCE_LIMITS);
  const limits = resourceLimitsFromEnv({
    KEEL_COMMAND_MAX_MEMORY: '256M',
    KEEL_COMMAND_MAX_FILE_SIZE: '3k',
    KEEL_COMMAND_MAX_PROCESSES: '64',
    KEEL_COMMAND_MAX_OPEN_FILES: ' 100 ',
    KEEL_LAYER_MAX_BYTES: '2G',
    KEEL_LAYER_MAX_ENTRIES: '',
  });
  assert.deepEqual(limits, {
    memoryBytes: 256 * 1024 * 1024,
    fileSizeBytes: 3 * 1024,
    processes: 64,
    openFiles: 100,
    layerBytes: 2 * 1024 ** 3,
    layerEntries: DEFAULT_RESOURCE_LIMITS.layerEntries,
  });
});

test('resource limits: a bad value stops with one line naming the variable', () => {
  for (const bad of ['0', '-5', '1.5G', '12T', 'lots', '99999999999999999999'])
    assert.throws(
      () => resourceLimitsFromEnv({ KEEL_COMMAND_MAX_MEMORY: bad }),
      (error: Error) =>
        error.message ===
        `KEEL_COMMAND_MAX_MEMORY must be a positive whole number, optionally with K, M or G, got "${bad}"`,
      bad,
    );
});

test('ulimit gets memory in KiB, file size in 1 KiB blocks, processes and open files', () => {
  const limits = {
    ...DEFAULT_RESOURCE_LIMITS,
    memoryBytes: 256 * 1024 * 1024 + 1023,
    fileSizeBytes: 5 * 1024 + 1023,
    processes: 9,
    openFiles: 10,
  };
  assert.deepEqual(ulimitArguments(limits), [String(256 * 1024), '5', '9', '10']);
  assert.equal(enforcedFileSizeBytes(limits), 5 * 1024);
  assert.match(CONFINE_SCRIPT, /ulimit -d "\$1" -f "\$2" -u "\$3" -n "\$4" \|\| exit 125; shift 5;/);
  // Itself (0) into the v1 tasks file: moving one thread skips the lock an RCU grace period waits on.
  assert.match(CONFINE_SCRIPT, /^if \[ -n "\$5" \]; then echo 0 > "\$5\/tasks" \|\| exit 125; fi;/);
});

test('the network launcher is fixed text; tools and blocked addresses are its arguments', () => {
  assert.deepEqual(
    isolatedNetworkLauncher({ isolation: ISOLATION, blockedAddresses: ['192.0.2.2', '198.51.100.7'] }),
    [
      '/bin/sh',
      '-c',
      NETWORK_LAUNCHER_SCRIPT,
      'keel-network',
      '/u/unshare',
      '/u/slirp4netns',
      '/u/ip',
      '192.0.2.2 198.51.100.7',
    ],
  );
  assert.match(NETWORK_LAUNCHER_SCRIPT, /--disable-host-loopback/);
  assert.match(NETWORK_LAUNCHER_SCRIPT, /route replace unreachable/);
});

test('network granted where it cannot be isolated: a typed non-retryable failure, never the host network', () => {
  const unavailable = { available: false, reason: 'slirp4netns not found' } as const;
  for (const attempt of [
    () => isolatedNetworkLauncher({ isolation: unavailable, blockedAddresses: [] }),
    () => confinementPrefix({ ...STATUS, network: unavailable }, true),
  ])
    assert.throws(attempt, (error: unknown) => {
      assert.ok(error instanceof ApplicationFailure);
      assert.equal(error.type, NETWORK_ISOLATION_UNAVAILABLE);
      assert.equal(error.nonRetryable, true);
      assert.match(error.message, /slirp4netns not found/);
      return true;
    });
  // Without network the missing tool does not matter.
  assert.doesNotThrow(() => confinementPrefix({ ...STATUS, network: unavailable }, false));
});

test('confinement: without network no namespace launcher; limits set and descriptors closed before bwrap', () => {
  const plain = confinementPrefix(STATUS, false);
  assert.deepEqual(plain, [
    '/bin/bash',
    '-c',
    CONFINE_SCRIPT,
    'keel-confine',
    ...ulimitArguments(DEFAULT_RESOURCE_LIMITS),
    '',
  ]);
  assert.deepEqual(confinementPrefix(STATUS, false, '/cg/call-1'), [...plain.slice(0, -1), '/cg/call-1']);
  const networked = confinementPrefix(STATUS, true);
  assert.deepEqual(networked, [
    ...isolatedNetworkLauncher({ isolation: ISOLATION, blockedAddresses: hostAddresses() }),
    ...plain,
  ]);
});

test("the host's own addresses are IPv4 and never loopback", () => {
  for (const address of hostAddresses()) {
    assert.match(address, /^\d+\.\d+\.\d+\.\d+$/);
    assert.ok(!address.startsWith('127.'));
  }
});
