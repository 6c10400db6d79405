import { createHash, randomUUID } from 'node:crypto';
import { access, link, mkdir, open, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { toolOutcomeSchema, type ToolOutcome } from '../../workflows/tools/tool-outcome';

/** What a marker records about one irreversible call. */
export const journalRecordSchema = z.object({
  idempotencyKey: z.string(),
  toolName: z.string(),
  summary: z.string(),
  /** When the call began: the marker is written (and synced) before the side effect starts. */
  startedAt: z.string(),
  finishedAt: z.string().optional(),
  ok: z.boolean().optional(),
  exitCode: z.number().int().optional(),
  /** Set when the call ended in an exception rather than an outcome. */
  error: z.string().optional(),
  /** The outcome the call returned, so a retry after a lost completion returns it, not a re-run. */
  outcome: toolOutcomeSchema.optional(),
  /** Set when a later attempt found the call begun and unfinished (cut off) and reported it unknown. */
  reportedUnknownAt: z.string().optional(),
});
export type JournalRecord = z.infer<typeof journalRecordSchema>;

export type JournalClaim =
  | { readonly claimed: true; readonly markerPath: string }
  /** Already claimed by an earlier attempt; its record is undefined if unreadable (crashed mid-write). */
  | { readonly claimed: false; readonly markerPath: string; readonly earlier: JournalRecord | undefined };

/**
 * At-most-once for irreversible calls. Temporal may run an activity again after a worker crash;
 * before an irreversible call begins, a marker named by its idempotency key is created atomically
 * (O_EXCL) and synced, so a later attempt knows whether the call began:
 * - no marker: it never began (the worker died before), and running it now is safe;
 * - a marker without a finish: it began and was cut off, so its outcome is unknown;
 * - a finished marker: it ran, and its recorded outcome is the answer.
 *
 * This holds only when the retrying worker reads the same journal (one host, or a directory every
 * worker shares); `id` lets an attempt tell that an earlier one used another journal.
 */
export function createIrreversibleJournal(options: { directory: string; now?: () => Date }) {
  const now = options.now ?? (() => new Date());
  const markerPathFor = (idempotencyKey: string): string =>
    path.join(options.directory, `${createHash('sha256').update(idempotencyKey).digest('hex')}.json`);
  let journalId: Promise<string> | undefined;

  return {
    /** This journal's identity, created once per directory and kept in it. */
    id(): Promise<string> {
      journalId ??= readOrCreateId(options.directory);
      return journalId;
    },

    /**
     * The marker of a call, without claiming it: undefined when none exists. `earlier` is
     * undefined when a marker exists but cannot be read (cut off mid-write).
     */
    async peek(idempotencyKey: string): Promise<{ earlier: JournalRecord | undefined } | undefined> {
      const markerPath = markerPathFor(idempotencyKey);
      try {
        await access(markerPath);
      } catch {
        return undefined;
      }
      return { earlier: await readRecord(markerPath) };
    },

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
    async recordFinish(markerPath: string, result: { outcome?: ToolOutcome; error?: string }): Promise<void> {
      const { outcome, error } = result;
      await update(markerPath, (started) => ({
        ...started,
        finishedAt: now().toISOString(),
        ...(outcome === undefined
          ? {}
          : {
              ok: outcome.ok,
              outcome,
              ...(outcome.facts.exitCode === undefined ? {} : { exitCode: outcome.facts.exitCode }),
            }),
        ...(error === undefined ? {} : { error }),
      }));
    },

    /** Notes that a later attempt found the call cut off and reported its outcome unknown. */
    async recordReportedUnknown(markerPath: string): Promise<void> {
      await update(markerPath, (record) => ({ ...record, reportedUnknownAt: now().toISOString() }));
    },
  };
}
export type IrreversibleJournal = ReturnType<typeof createIrreversibleJournal>;

async function update(markerPath: string, change: (record: JournalRecord) => JournalRecord): Promise<void> {
  const record = await readRecord(markerPath);
  if (record === undefined) return;
  const temporary = `${markerPath}.${process.pid}.tmp`;
  await writeFile(temporary, JSON.stringify(change(record)));
  await rename(temporary, markerPath);
}

async function readRecord(markerPath: string): Promise<JournalRecord | undefined> {
  try {
    const parsed = journalRecordSchema.safeParse(JSON.parse(await readFile(markerPath, 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

async function readOrCreateId(directory: string): Promise<string> {
  await mkdir(directory, { recursive: true });
  const idPath = path.join(directory, 'journal-id');
  // Written aside and linked into place: link fails if another process got there first, and no
  // reader ever sees an empty id.
  const candidate = `${idPath}.${process.pid}.${randomUUID()}.tmp`;
  await writeFile(candidate, randomUUID());
  try {
    await link(candidate, idPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(candidate);
  }
  return (await readFile(idPath, 'utf8')).trim();
}

/** Why an earlier attempt's call has no known outcome, in words for the model and the ledger. */
export function describeUnknownAttempt(earlier: JournalRecord | undefined): string {
  if (earlier === undefined) return 'an earlier attempt began it but recorded nothing more';
  if (earlier.error !== undefined)
    return `an earlier attempt began it at ${earlier.startedAt} and it failed midway (${earlier.error})`;
  return `an earlier attempt began it at ${earlier.startedAt} and never recorded finishing (the worker probably stopped mid-call)`;
}
