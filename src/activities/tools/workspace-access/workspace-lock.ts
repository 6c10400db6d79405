/**
 * One writer at a time per workspace in this worker process. A turn's calls run in parallel, and
 * a command's copy-on-write layer is applied file by file: a write_file landing in the middle, or
 * two layers applied at once, would leave a mix of both that no call made. Reads take no lock (a
 * read-only call cannot write; the kernel sees to that). Writers in other processes are caught by
 * the layer's own check that what it replaces is still what it saw (see layers/apply-layer.ts).
 */
const tails = new Map<string, Promise<unknown>>();

export async function withWorkspaceLock<T>(workspace: string, work: () => Promise<T>): Promise<T> {
  const previous = tails.get(workspace) ?? Promise.resolve();
  const run = previous.then(work, work);
  const tail = run.then(
    () => undefined,
    () => undefined,
  );
  tails.set(workspace, tail);
  try {
    return await run;
  } finally {
    if (tails.get(workspace) === tail) tails.delete(workspace);
  }
}
