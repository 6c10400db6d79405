import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';

/** What a marker records about one irreversible call. */
export const journalRecordSchema = z.object({
  idempotencyKey: z.string(),
  toolName: z.string(),
  summary: z.string(),
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  ok: z.boolean().optional(),
  exitCode: z.number().int().optional(),
  /** Set when the call ended in an exception rather than an outcome. */
  error: z.string().optional(),
});
export type JournalRecord = z.infer<typeof journalRecordSchema>;

export type JournalClaim =
  | { readonly claimed: true; readonly markerPath: string }
  /** Already claimed by an earlier attempt; its record is undefined if unreadable (crashed mid-write). */
  | { readonly claimed: false; readonly markerPath: string; readonly earlier: JournalRecord | undefined };

/**
 * At-most-once for irreversible calls. Temporal may run an activity again after a worker crash;
 * before an irreversible call runs, a marker named by its idempotency key is created atomically
 * (O_EXCL), so a second attempt finds it and refuses instead of, say, deploying twice.
 */
export function createIrreversibleJournal(options: { directory: string; now?: () => Date }) {
  const now = options.now ?? (() => new Date());
  const markerPathFor = (idempotencyKey: string): string =>
    path.join(options.directory, `${createHash('sha256').update(idempotencyKey).digest('hex')}.json`);

  return {
    async claim(call: { idempotencyKey: string; toolName: string; summary: string }): Promise<JournalClaim> {
      await mkdir(options.directory, { recursive: true });
      const markerPath = markerPathFor(call.idempotencyKey);
      const record: JournalRecord = { ...call, startedAt: now().toISOString() };
      let file;
      try {
        file = await open(markerPath, 'wx');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
        return { claimed: false, markerPath, earlier: await readRecord(markerPath) };
      }
      try {
        await file.writeFile(JSON.stringify(record));
        await file.sync(); // the claim must survive the crash it guards against
      } finally {
        await file.close();
      }
      return { claimed: true, markerPath };
    },

    /** Adds how the call ended to its marker (write-then-rename, so a reader never sees half). */
    async recordFinish(
      markerPath: string,
      result: { ok?: boolean; exitCode?: number; error?: string },
    ): Promise<void> {
      const started = await readRecord(markerPath);
      if (started === undefined) return;
      const finished: JournalRecord = { ...started, ...result, finishedAt: now().toISOString() };
      const temporary = `${markerPath}.${process.pid}.tmp`;
      await writeFile(temporary, JSON.stringify(finished));
      await rename(temporary, markerPath);
    },
  };
}
export type IrreversibleJournal = ReturnType<typeof createIrreversibleJournal>;

async function readRecord(markerPath: string): Promise<JournalRecord | undefined> {
  try {
    const parsed = journalRecordSchema.safeParse(JSON.parse(await readFile(markerPath, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** How an earlier attempt of the same call ended, in words for the model. */
export function describeEarlierAttempt(earlier: JournalRecord | undefined): string {
  if (earlier === undefined)
    return 'An earlier attempt started, but recorded nothing more: its outcome is unknown.';
  const started = `An earlier attempt started at ${earlier.startedAt}`;
  if (earlier.finishedAt === undefined) {
    return `${started} and never recorded finishing (the worker probably stopped mid-call): its outcome is unknown.`;
  }
  const how =
    earlier.error !== undefined
      ? `with an error (${earlier.error})`
      : earlier.exitCode !== undefined
        ? `with exit code ${earlier.exitCode}`
        : earlier.ok === true
          ? 'successfully'
          : 'with a failure';
  return `${started} and finished at ${earlier.finishedAt} ${how}.`;
}
