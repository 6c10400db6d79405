import { createHash } from 'node:crypto';
import { readlink } from 'node:fs/promises';
import { ApplicationFailure } from '@temporalio/common';
import { z } from 'zod';
import { FailureType } from '../../workflows/common/failure-types';
import { walkFiles } from '../tools/walk-files';
import { readRegularFile } from '../tools/workspace-access/open-beneath';

/** What a child's copy held when it started: the base its changes are merged against. */
export const copyManifestSchema = z.object({
  version: z.literal(1),
  /** Workspace-relative path → `sha256:<hex>` for a file, `link:<target>` for a link. */
  files: z.record(z.string(), z.string()),
});
export type CopyManifest = z.infer<typeof copyManifestSchema>;

/** A file's entry in a manifest: its content's hash. */
export function contentHash(content: Buffer): string {
  return `sha256:${createHash('sha256').update(content).digest('hex')}`;
}

/** A copy keel makes is bounded: a workspace beyond this is delegated shared, not copied. */
const MAX_COPY_FILES = 20_000;
const MAX_COPY_BYTES = 1024 * 1024 * 1024;

/**
 * Each file's content hash (and each link's target) under `root`, as the merge compares them.
 * node_modules and .git are copied but not listed (walkFiles skips them): what a child changes
 * there stays in its copy.
 */
export async function manifestOf(root: string, limits = { files: MAX_COPY_FILES, bytes: MAX_COPY_BYTES }) {
  const files: Record<string, string> = {};
  let count = 0;
  let bytes = 0;
  for await (const file of walkFiles({ root })) {
    count += 1;
    bytes += file.size;
    if (count > limits.files || bytes > limits.bytes) {
      throw ApplicationFailure.nonRetryable(
        `workspace too large to copy for a child (over ${limits.files} files or ${limits.bytes} bytes): delegate with workspace "shared" instead`,
        FailureType.WorkspaceUnpreparable,
      );
    }
    files[file.relative] =
      file.kind === 'symlink'
        ? `link:${await readlink(file.path)}`
        : contentHash(await readRegularFile(file.path));
  }
  return files;
}
