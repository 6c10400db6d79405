import { test } from 'node:test';
import assert from 'node:assert/strict';
import { bubblewrapArguments } from '../../src/activities/tools/sandbox/bubblewrap-arguments';
import { CallLayer } from '../../src/activities/tools/layers/layer-record';
import { isWithin } from '../../src/activities/hosts/workspace-overlap';
import { workspaceStateRoot } from '../../src/activities/hosts/workspace-state-directory';

/**
 * Issue 43 item 4: keel's state (held layers and their records, journals, backups) is out of
 * every sandboxed command's reach. The sandbox binds only the system read-only and, at the
 * workspace's path, the workspace or the call's own layer's merged view: no bind mounts any part
 * of the state at a path the command sees, except that one view, which shows the workspace, never
 * the layer's record beside it.
 */

/** Every bind bwrap is given: [option, source, target]. */
function binds(args: readonly string[]): Array<readonly [string, string, string]> {
  const found: Array<readonly [string, string, string]> = [];
  args.forEach((arg, index) => {
    if (/^--(ro-)?bind(-try)?$/.test(arg)) found.push([arg, args[index + 1] ?? '', args[index + 2] ?? '']);
  });
  return found;
}

for (const workspace of ['/work/app', '/tmp/keel-x/project', '/srv']) {
  test(`the sandbox of ${workspace} mounts no part of keel's state, its own layer's view aside`, () => {
    const state = workspaceStateRoot(workspace);
    const layer = new CallLayer(workspace, 'goal/call-1');
    assert.ok(isWithin(layer.directories.merged, state), 'the layer lies in the state');
    for (const access of ['read-only', 'read-write'] as const) {
      for (const source of [undefined, layer.directories.merged]) {
        const args = bubblewrapArguments({
          workspace,
          network: false,
          access,
          ...(source === undefined ? {} : { source }),
        });
        for (const [option, from, to] of binds(args)) {
          assert.equal(isWithin(to, state), false, `${option} ${from} ${to} puts state in view`);
          if (isWithin(from, state)) {
            assert.equal(from, layer.directories.merged, `${option} ${from}: only the layer's merged view`);
            assert.equal(to, workspace, "and only at the workspace's path");
          }
        }
      }
    }
  });
}
