import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { probeProcessCgroup, wantsProcessCgroup } from '../../src/activities/tools/sandbox/process-cgroup';
import {
  describeSandbox,
  resetSandboxStatus,
  sandboxStatus,
} from '../../src/activities/tools/sandbox/sandbox-status';

/**
 * Issue 43: RLIMIT_NPROC never binds a worker running as root, so there a pids cgroup per call is
 * the default, not an opt-in; elsewhere the free rlimit is enough.
 */

test('by default only a root worker gives each call a pids cgroup; on and off say so for any user', () => {
  for (const setting of [undefined, '', 'auto']) {
    assert.equal(wantsProcessCgroup(setting, 0), true, `${setting} as root`);
    assert.equal(wantsProcessCgroup(setting, 1000), false, `${setting} as a user`);
    assert.equal(wantsProcessCgroup(setting, undefined), false, `${setting} without uids`);
  }
  assert.equal(wantsProcessCgroup('on', 1000), true);
  assert.equal(wantsProcessCgroup('off', 0), false);
});

test('any other KEEL_PROCESS_CGROUP is one clear line', () => {
  assert.throws(
    () => wantsProcessCgroup('yes', 0),
    /^Error: KEEL_PROCESS_CGROUP must be on, off or auto, got "yes"$/,
  );
});

test("left at the default, a root worker makes the calls' pids cgroups under its own, another user none", () => {
  const before = process.env.KEEL_PROCESS_CGROUP;
  delete process.env.KEEL_PROCESS_CGROUP;
  resetSandboxStatus();
  try {
    const status = sandboxStatus();
    assert.ok(status.mode === 'bubblewrap', 'bubblewrap runs here (.ci/run installs it)');
    if (process.getuid?.() !== 0) {
      assert.equal(status.processCgroup, undefined, 'RLIMIT_NPROC binds another user: no cgroup');
      return;
    }
    assert.ok(status.processCgroup !== undefined, 'a root worker has a pids cgroup by default');
    const own = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find((line) => line.split(':')[1]?.split(',').includes('pids'))
      ?.split(':')
      .slice(2)
      .join(':');
    assert.equal(status.processCgroup, path.join('/sys/fs/cgroup/pids', own ?? '?', `keel-${process.pid}`));
    assert.equal(readFileSync(path.join(status.processCgroup, 'pids.max'), 'utf8').trim(), 'max');
  } finally {
    if (before !== undefined) process.env.KEEL_PROCESS_CGROUP = before;
    resetSandboxStatus();
  }
});

test('probing again (a reset status, as the evaluation does per case) adds no second cleanup at exit', () => {
  const first = probeProcessCgroup();
  const listeners = process.listenerCount('exit');
  for (let probe = 0; probe < 12; probe += 1) assert.equal(probeProcessCgroup(), first);
  assert.equal(process.listenerCount('exit'), listeners);
});

test("the worker's first line says how the process limit holds, and warns where a root worker cannot hold it", () => {
  const before = process.env.KEEL_PROCESS_CGROUP;
  try {
    for (const [setting, expected] of [
      [undefined, /512 processes \(a pids cgroup per command\)$/],
      ['off', /512 processes, WARNING not held: .* \(KEEL_PROCESS_CGROUP=off\); run it as another user$/],
    ] as const) {
      if (setting === undefined) delete process.env.KEEL_PROCESS_CGROUP;
      else process.env.KEEL_PROCESS_CGROUP = setting;
      resetSandboxStatus();
      // As root here; another user's line names the limit alone (RLIMIT_NPROC holds it).
      assert.match(describeSandbox(), process.getuid?.() === 0 ? expected : /512 processes$/);
    }
  } finally {
    if (before === undefined) delete process.env.KEEL_PROCESS_CGROUP;
    else process.env.KEEL_PROCESS_CGROUP = before;
    resetSandboxStatus();
  }
});
