import { visibleText } from '../workflows/tools/call-text';
import { HELD_CHANGE_KINDS } from '../workflows/tools/held-changes-text';
import { changeSetDigest } from '../workflows/approvals/change-set-digest';
import type { WorkspaceEffects } from '../workflows/tools/tool-outcome';

/**
 * A held call's whole change list, a page at a time: `keel pending` names the first
 * PENDING_PATHS_SHOWN paths of each kind under a call, and `keel pending <goal> --changes <callId>
 * [--page K]` lists every one, a path a line, so an approver can read all they approve before
 * approving its digest. Pure, so tests read exactly what is printed.
 */

/** Paths of each kind `keel pending` names under a call before pointing to the whole list. */
export const PENDING_PATHS_SHOWN = 50;
/** Paths a page of `keel pending … --changes` lists. */
export const CHANGES_PAGE_SIZE = 200;

const VERB = { deleted: 'delete', modified: 'modify', created: 'create' } as const;

/** The command that lists a call's held changes whole, page one unless told. */
export function changesCommand(workflowId: string, callId: string, page?: number): string {
  return `keel pending ${workflowId} --changes ${callId}${page === undefined ? '' : ` --page ${page}`}`;
}

export type ChangesPage = { ok: true; lines: string[] } | { ok: false; message: string };

/**
 * Page `page` (from 1) of a call's held changes: deletions, modifications, creations in the
 * list's order, one `delete  path` line each; the last page adds what the list counts rather
 * than names (entries inside skipped directories, paths an older worker left off). Every page
 * ends with the digest of the whole set, the one `keel approve … --changes` takes.
 */
export function changesPage(options: {
  workflowId: string;
  callId: string;
  changes: WorkspaceEffects;
  page: number;
  pageSize?: number;
}): ChangesPage {
  const { workflowId, callId, changes, page } = options;
  const pageSize = options.pageSize ?? CHANGES_PAGE_SIZE;
  const rows = HELD_CHANGE_KINDS.flatMap(([, kind]) =>
    changes[kind].map((path) => `${VERB[kind]}  ${visibleText(path, { oneLine: true })}`),
  );
  const pages = Math.max(1, Math.ceil(rows.length / pageSize));
  if (!Number.isInteger(page) || page < 1 || page > pages) {
    return {
      ok: false,
      message: `no page ${page} of ${callId}'s changes: pages run from 1 to ${pages} (${rows.length} paths, ${pageSize} a page)`,
    };
  }
  const first = (page - 1) * pageSize;
  const shown = rows.slice(first, first + pageSize);
  const counted = [
    ...Object.entries(changes.collapsed ?? {}).map(
      ([directory, count]) => `inside ${visibleText(directory, { oneLine: true })}: ${count} entries`,
    ),
    ...HELD_CHANGE_KINDS.filter(([, kind]) => (changes.omitted?.[kind] ?? 0) > 0).map(
      ([label, kind]) => `${label} ${changes.omitted?.[kind]} more paths this list does not name`,
    ),
  ];
  const digest = changeSetDigest(changes);
  return {
    ok: true,
    lines: [
      `# ${workflowId} ${callId} holds ${rows.length} changed paths; page ${page} of ${pages}, paths ${rows.length === 0 ? 0 : first + 1}-${first + shown.length}:`,
      ...shown,
      ...(page === pages ? counted : []),
      ...(page < pages ? [`# more: ${changesCommand(workflowId, callId, page + 1)}`] : []),
      `# these changes (all ${pages} page${pages === 1 ? '' : 's'}): ${digest} (keel approve ${workflowId} ${callId} --changes ${digest})`,
    ],
  };
}
