import { lstatSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/**
 * Every path under `root` (links not followed) with its mode and content, or its link target:
 * two folders are byte-equal when their trees are (issue 48's forks). `skip` leaves names out.
 */
export function fileTree(root: string, skip: readonly string[] = []): Record<string, string> {
  const entries: Record<string, string> = {};
  const walk = (relative: string) => {
    for (const name of readdirSync(path.join(root, relative)).sort()) {
      if (skip.includes(name)) continue;
      const child = relative === '' ? name : `${relative}/${name}`;
      const full = path.join(root, child);
      const info = lstatSync(full);
      if (info.isDirectory()) walk(child);
      else if (info.isSymbolicLink()) entries[child] = `-> ${readlinkSync(full)}`;
      else entries[child] = `${(info.mode & 0o777).toString(8)} ${readFileSync(full, 'base64')}`;
    }
  };
  walk('');
  return entries;
}
