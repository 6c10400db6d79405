import path from 'node:path';

/**
 * What keel keeps of a workspace on its host: the irreversible-call journal, backups, copy-on-write
 * layers, packs carried to another host, the manifests of delegated children's copies, turn
 * checkpoints, fork claims, and markers of the calls running on it.
 */
export type WorkspaceStateKind =
  'journal' | 'backups' | 'layers' | 'carry' | 'copies' | 'checkpoints' | 'forks' | 'running';

/**
 * Where keel keeps a workspace's state when no shared store is configured: on the workspace's own
 * host, so it moves (or is lost) with the workspace, and no other host needs to see it.
 *
 * Beside the workspace, not inside it: a backup would copy itself, the model's tools would list
 * and search it, and `git status` would show it to the user. `/work/app` keeps its state in
 * `/work/.keel-state/app/<kind>`, inside the same workspace root.
 */
export function workspaceStateDirectory(workspace: string, kind: WorkspaceStateKind): string {
  return path.join(workspaceStateRoot(workspace), kind);
}

/** `/work/.keel-state/app` for `/work/app`: everything keel keeps of that workspace on its host. */
export function workspaceStateRoot(workspace: string): string {
  const resolved = path.resolve(workspace); // "/work/app/" and "/work/x/../app" are "/work/app"
  return path.join(path.dirname(resolved), '.keel-state', path.basename(resolved));
}
