import { z } from 'zod';
import type { WorkspaceEffects } from '../tools/tool-outcome';

/**
 * What the goal's calls changed in its workspace since the workspace was last (re)created, so a
 * goal moved to a host that had to recreate it from git can say exactly which of its writes are
 * missing there (issue 23). Pure: built from tool results recorded in history.
 */

/** Paths listed at most; more are counted, so a call that makes thousands of files stays small. */
export const MAX_LISTED_WRITES = 200;
/** Calls that changed the workspace without saying what, listed at most (more are counted). */
export const MAX_UNREPORTED_CALLS = 20;

export const workspaceWritesSchema = z.lazy(() =>
  z.object({
    /** Workspace-relative paths created, modified or deleted, first change first. */
    paths: z.array(z.string()),
    /** Changes not listed: beyond the cap, or reported by a call only as a count. */
    omitted: z.number().int().nonnegative(),
    /** Summaries of calls that may have changed the workspace without reporting what. */
    unreported: z.array(z.string()),
  }),
);
export type WorkspaceWrites = z.infer<typeof workspaceWritesSchema>;

export const workspaceLossSchema = z.lazy(() =>
  z.object({
    at: z.string(),
    /** The host that recreated the workspace. */
    host: z.string(),
    /** Where it was recreated from: `<git url>@<ref>` (`@HEAD` without a ref). */
    source: z.string(),
    /** The writes of the goal that the recreated workspace does not have. */
    lost: z.array(z.string()),
    omitted: z.number().int().nonnegative(),
    unreported: z.array(z.string()),
  }),
);
export type WorkspaceLoss = z.infer<typeof workspaceLossSchema>;

/** The writes after one executed call; read-only calls change nothing. */
export function noteWrites(
  writes: WorkspaceWrites | undefined,
  call: { summary: string; readOnly: boolean; ok: boolean; effects: WorkspaceEffects | undefined },
): WorkspaceWrites | undefined {
  if (call.readOnly) return writes;
  const effects = call.effects;
  if (effects === undefined) {
    // A failed call without effects reported nothing because nothing of it happened (the tools
    // report effects whenever they touched the workspace); a successful one just did not say.
    if (!call.ok) return writes;
    const base = writes ?? emptyWrites();
    if (base.unreported.includes(call.summary)) return base;
    return base.unreported.length < MAX_UNREPORTED_CALLS
      ? { ...base, unreported: [...base.unreported, call.summary] }
      : { ...base, omitted: base.omitted + 1 };
  }
  const changed = [
    ...effects.created,
    ...effects.modified,
    ...effects.deleted,
    ...Object.keys(effects.collapsed ?? {}),
  ];
  const counted = effects.omitted
    ? effects.omitted.created + effects.omitted.modified + effects.omitted.deleted
    : 0;
  if (changed.length === 0 && counted === 0) return writes;
  const next = writes ?? emptyWrites();
  const paths = [...next.paths];
  let omitted = next.omitted + counted;
  for (const path of changed) {
    if (paths.includes(path)) continue;
    if (paths.length < MAX_LISTED_WRITES) paths.push(path);
    else omitted += 1;
  }
  return { ...next, paths, omitted };
}

function emptyWrites(): WorkspaceWrites {
  return { paths: [], omitted: 0, unreported: [] };
}

/** The writes a workspace recreated from `source` on `host` no longer has (lists may be empty). */
export function workspaceLossOf(
  writes: WorkspaceWrites | undefined,
  recreated: { at: string; host: string; source: string },
): WorkspaceLoss {
  return {
    ...recreated,
    lost: writes?.paths ?? [],
    omitted: writes?.omitted ?? 0,
    unreported: writes?.unreported ?? [],
  };
}

export function hasLoss(loss: WorkspaceLoss): boolean {
  return loss.lost.length > 0 || loss.omitted > 0 || loss.unreported.length > 0;
}

/** `<git url>@<ref>`, as the loss names where the workspace came from. */
export function sourceText(source: { git: string; ref?: string | undefined }): string {
  return `${source.git}@${source.ref ?? 'HEAD'}`;
}

/** What is missing, in words: the paths, then the rest counted or named by call. */
function missingText(loss: WorkspaceLoss): string {
  const parts = [
    ...(loss.lost.length > 0 ? [loss.lost.join(', ')] : []),
    ...(loss.omitted > 0 ? [`${loss.omitted} more change${loss.omitted === 1 ? '' : 's'}`] : []),
    ...(loss.unreported.length > 0 ? [`whatever these calls changed: ${loss.unreported.join('; ')}`] : []),
  ];
  return parts.join('; ');
}

/** What the model reads before its next turn. */
export function workspaceLossNote(loss: WorkspaceLoss): string {
  const recreated = `The workspace was recreated on host ${loss.host} from ${loss.source}`;
  if (!hasLoss(loss)) return `${recreated}; you had not changed it before, so nothing of yours is missing.`;
  return `${recreated}: these writes of yours are missing: ${missingText(loss)}. Make them again if the goal still needs them; do not assume earlier results in the workspace still hold.`;
}

/** One line for a human (keel status, keel run --wait, the goal's result). */
export function workspaceLossLine(loss: WorkspaceLoss): string {
  const count = loss.lost.length + loss.omitted + loss.unreported.length;
  return `workspace recreated on host ${loss.host} from ${loss.source} at ${loss.at}: ${count} write${count === 1 ? '' : 's'} of the goal lost (${missingText(loss)})`;
}
