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
  prlimitArguments,
  resourceLimitsFromEnv,
} from '../../src/activities/tools/sandbox/resource-limits';
import { confinementPrefix } from '../../src/activities/tools/sandbox/confinement';
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
  prlimit: '/u/prlimit',
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

test('prlimit sets memory, file size, processes and open files, then runs the rest', () => {
  assert.deepEqual(
    prlimitArguments('/u/prlimit', {
      ...DEFAULT_RESOURCE_LIMITS,
      memoryBytes: 7,
      fileSizeBytes: 8,
      processes: 9,
      openFiles: 10,
    }),
    ['/u/prlimit', '--as=7', '--fsize=8', '--nproc=9', '--nofile=10', '--'],
  );
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
  assert.match(NETWORK_LAUNCHER_SCRIPT, /route add unreachable/);
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

test('confinement: without network no namespace launcher; descriptors closed, then the limits', () => {
  const plain = confinementPrefix(STATUS, false);
  assert.deepEqual(plain.slice(0, 2), ['/bin/bash', '-c']);
  assert.equal(plain[3], 'keel-descriptors');
  assert.deepEqual(plain.slice(4), prlimitArguments('/u/prlimit', DEFAULT_RESOURCE_LIMITS));
  assert.ok(!plain.includes(NETWORK_LAUNCHER_SCRIPT));
  const networked = confinementPrefix(STATUS, true);
  assert.equal(networked[2], NETWORK_LAUNCHER_SCRIPT);
  assert.deepEqual(networked.slice(-plain.length), plain);
  assert.deepEqual(
    networked.slice(0, 8),
    isolatedNetworkLauncher({ isolation: ISOLATION, blockedAddresses: hostAddresses() }),
  );
  // No prlimit on this host: no limits, the rest unchanged.
  assert.deepEqual(confinementPrefix({ ...STATUS, prlimit: undefined }, false), plain.slice(0, 4));
});

test("the host's own addresses are IPv4 and never loopback", () => {
  for (const address of hostAddresses()) {
    assert.match(address, /^\d+\.\d+\.\d+\.\d+$/);
    assert.ok(!address.startsWith('127.'));
  }
});
