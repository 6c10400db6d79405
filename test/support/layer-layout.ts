import { cpSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { tempDirectory } from './temp-directory';

/**
 * A layer without a kernel overlay: an upper directory, the workspace below it and the merged
 * view as plain directories laid out as overlayfs would leave them, so captureLayer's walk runs
 * as it does after a sandboxed command.
 */
export interface LayerLayout {
  readonly upper: string;
  readonly workspace: string;
  readonly merged: string;
}

export function layerLayout(prefix: string): LayerLayout {
  const base = tempDirectory(prefix);
  const layout = {
    upper: path.join(base, 'upper'),
    workspace: path.join(base, 'workspace'),
    merged: path.join(base, 'merged'),
  };
  for (const directory of Object.values(layout)) mkdirSync(directory);
  return layout;
}

/** The merged view: the workspace with the upper laid over it (no whiteouts: nothing deleted). */
export function mergeLayer(layout: LayerLayout): void {
  cpSync(layout.workspace, layout.merged, { recursive: true });
  cpSync(layout.upper, layout.merged, { recursive: true, force: true });
}

/** Writes files (parents made) under a root, e.g. the upper directory or the workspace. */
export function writeTree(root: string, files: Readonly<Record<string, string>>): void {
  for (const [relative, content] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(root, relative)), { recursive: true });
    writeFileSync(path.join(root, relative), content);
  }
}
