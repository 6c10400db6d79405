import path from 'node:path';
import { readRegularFile } from './open-beneath';

/** A config larger than this is not read for includes (git's own are a few hundred bytes). */
const CONFIG_MAX_BYTES = 1024 * 1024;
/** Includes of includes are followed this deep: git's own limit is 10, and a loop must end. */
const INCLUDE_DEPTH = 10;

/**
 * The workspace files the workspace repository's configuration includes (`[include] path = …`,
 * `[includeIf "…"] path = …`, and what those include in turn), workspace-relative: git reads
 * each as part of .git/config, so the change policy guards them like .git/config
 * (GitSurroundings.includedConfigs). Relative paths are resolved from the including file's
 * directory, as git does; paths outside the workspace (~/…, /etc/…) are not the workspace's to
 * guard. Read-only and best-effort: a config that cannot be read includes nothing.
 */
export async function gitIncludedConfigs(workspace: string): Promise<ReadonlySet<string>> {
  const included = new Set<string>();
  const pending: { file: string; depth: number }[] = [
    { file: path.join(workspace, '.git', 'config'), depth: 0 },
    { file: path.join(workspace, '.git', 'config.worktree'), depth: 0 },
  ];
  for (let next = pending.shift(); next !== undefined; next = pending.shift()) {
    let text: string;
    try {
      text = (await readRegularFile(next.file, CONFIG_MAX_BYTES)).toString('utf8');
    } catch {
      continue;
    }
    for (const value of includePaths(text)) {
      if (value.startsWith('~')) continue;
      const absolute = path.resolve(path.dirname(next.file), value);
      const relative = path.relative(workspace, absolute);
      if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) continue;
      const key = relative.split(path.sep).join('/');
      if (included.has(key)) continue;
      included.add(key);
      if (next.depth + 1 < INCLUDE_DEPTH) pending.push({ file: absolute, depth: next.depth + 1 });
    }
  }
  return included;
}

/** The `path` values of include and includeIf sections, in git's config syntax (enough of it). */
export function includePaths(text: string): string[] {
  const paths: string[] = [];
  let inInclude = false;
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    const section = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]\s*(.*)$/.exec(line);
    let rest = line;
    if (section !== null) {
      inInclude = /^include(?:if)?$/i.test(section[1] ?? '');
      rest = section[2] ?? ''; // `[include] path = x` on one line is valid too
    }
    const entry = /^path\s*=\s*(.*?)\s*$/i.exec(rest);
    if (!inInclude || entry === null) continue;
    const value = (entry[1] ?? '').replace(/\s[#;].*$/, '');
    paths.push(value.startsWith('"') && value.endsWith('"') ? value.slice(1, -1) : value);
  }
  return paths;
}
