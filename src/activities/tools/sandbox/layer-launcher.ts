/**
 * The launcher of a command on a copy-on-write layer (see ../layers/run-in-layer.ts). It runs in
 * a user and mount namespace of its own (`unshare --user --map-root-user --mount`), where the
 * worker's user may mount, and only there:
 * 1. binds the workspace at `lower` and mounts an overlay of it at `merged` (writes land in
 *    `upper`; the workspace itself is never written), with relative paths so no option needs
 *    escaping whatever the workspace is called;
 * 2. says `mounted` on fd 3 (or `setup-failed`), runs bwrap with `merged` bound at the
 *    workspace's path, and says `exit N` on fd 3;
 * 3. waits for end of file on fd 4, so the namespace, and the merged view the worker reads
 *    through /proc/PID/root, last until the worker has taken stock of the layer.
 * The command gets neither fd 3 nor fd 4. This script is fixed text: nothing of the command or
 * the workspace is ever part of it (they are "$1", "$2" and "$@").
 */
export const LAYER_LAUNCHER_SCRIPT = [
  'cd "$1" || exit 125',
  'if ! { /bin/mount --bind "$2" lower && /bin/mount -t overlay keel-layer -o lowerdir=lower,upperdir=upper,workdir=work,userxattr merged; }; then echo setup-failed >&3; exit 125; fi',
  'echo mounted >&3',
  'shift 2',
  '"$@" </dev/null 3>&- 4<&-',
  'echo "exit $?" >&3',
  'exec 3>&-',
  'exec /bin/cat <&4 >/dev/null',
].join('\n');

/** The directories of one layer, all beside the workspace (never inside it). */
export interface LayerDirectories {
  /** Holds the others; the launcher's working directory. */
  readonly root: string;
  readonly lower: string;
  readonly upper: string;
  readonly work: string;
  readonly merged: string;
}

/** argv of the launcher: unshare, the script, then bwrap and its arguments (the command last). */
export function layerLauncher(options: {
  unshare: string;
  layer: LayerDirectories;
  workspace: string;
  bwrap: readonly string[];
}): string[] {
  return [
    options.unshare,
    '--user',
    '--map-root-user',
    '--mount',
    '--',
    '/bin/sh',
    '-c',
    LAYER_LAUNCHER_SCRIPT,
    'keel-layer',
    options.layer.root,
    options.workspace,
    ...options.bwrap,
  ];
}
