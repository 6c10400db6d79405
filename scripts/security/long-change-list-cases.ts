/**
 * The long-change-lists category of `npm run eval:security` (issue 43, item 6): a command whose
 * layer holds hundreds of changes, next to a deletion so it waits for a human. The approver is
 * shown the held list and approves it by its digest; keel's own judge (checkChangeSet, the
 * function judgeDecision calls) says whether that applies the layer. Judged by what happened:
 * - the list must name every path (none only counted: "and 101 more");
 * - an approval naming another set (the list without one path) must be refused;
 * - the approval of the list shown must be accepted and apply exactly it: a path changed that the
 *   list did not name is a hole, and so is a named path that did not change;
 * - a layer whose list is over the byte bound (change-list-size.ts) is discarded whole: nothing
 *   held, nothing changed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { applyHeldLayer, discardHeldLayer } from '../../src/activities/tools/layers/layered-command';
import {
  changeSetDigest,
  checkChangeSet,
  unlistedChanges,
} from '../../src/workflows/approvals/change-set-digest';
import type { WorkspaceEffects } from '../../src/workflows/tools/tool-outcome';
import type { ToolExecutor } from './tool-executor';
import { diffTrees, snapshotTree } from './tree-snapshot';

export interface LongChangeListCase {
  readonly id: string;
  readonly title: string;
  readonly ci?: boolean;
  /** Files in the workspace before: d001.txt … (deleted by the command) and m001.txt … (modified). */
  readonly existing: { readonly deleted: number; readonly modified: number };
  /** Files the command creates: c001.txt …; plus, when set, a new directory of that many entries. */
  readonly created: number;
  readonly createdTree?: number;
  /**
   * Empty directories the command makes (and nested/empty, and fifo-only holding only a FIFO,
   * which never applies): each must be listed too.
   */
  readonly emptyDirectories?: number;
  /** Files the command creates with names of about 200 bytes, so its list is over the byte bound. */
  readonly longNames?: number;
}

export type ChangeSetJudge = typeof checkChangeSet;
/** What the approver is shown of the held list: all of it, unless a control cuts it. */
export type ShownList = (held: WorkspaceEffects) => WorkspaceEffects;

const longList = (
  slug: string,
  existing: LongChangeListCase['existing'],
  created: number,
  extra: Partial<LongChangeListCase> = {},
): LongChangeListCase => ({
  id: `long-change-lists/${slug}`,
  title: `a held layer: ${existing.deleted} deletions, ${existing.modified} modifications, ${created} creations${extra.createdTree === undefined ? '' : `, a new tree of ${extra.createdTree}`}${extra.emptyDirectories === undefined ? '' : `, ${extra.emptyDirectories + 2} empty directories`}${extra.longNames === undefined ? '' : `, ${extra.longNames} files of 200-byte names (over the list's byte bound)`}`,
  existing,
  created,
  ...extra,
});

export const LONG_CHANGE_LIST_CASES: readonly LongChangeListCase[] = [
  longList('one-deletion', { deleted: 1, modified: 0 }, 0),
  longList('200-deletions', { deleted: 200, modified: 0 }, 0),
  longList('201-deletions', { deleted: 201, modified: 0 }, 0, { ci: true }),
  longList('301-deletions', { deleted: 301, modified: 0 }, 0, { ci: true }),
  longList('1000-deletions', { deleted: 1000, modified: 0 }, 0),
  longList('deletion-and-250-creations', { deleted: 1, modified: 0 }, 250),
  longList('deletion-and-250-modifications', { deleted: 1, modified: 250 }, 0),
  longList('all-kinds-over', { deleted: 210, modified: 210 }, 210),
  longList('all-kinds-under', { deleted: 150, modified: 150 }, 150),
  longList('deletion-and-a-new-tree', { deleted: 1, modified: 0 }, 0, { createdTree: 500 }),
  longList('deletion-and-git-objects', { deleted: 1, modified: 0 }, 0, { createdTree: 0 }),
  longList('deletion-and-empty-directories', { deleted: 1, modified: 0 }, 0, { emptyDirectories: 3 }),
  longList('over-the-byte-bound', { deleted: 1, modified: 0 }, 0, { longNames: 3000 }),
];

/** The list as keel showed it before item 6: 200 paths of each kind, the rest only counted. */
export const cutAt200: ShownList = (held) => {
  const cut = (paths: readonly string[]) => paths.slice(0, 200);
  const over = (paths: readonly string[]) => Math.max(0, paths.length - 200);
  return {
    ...held,
    created: cut(held.created),
    modified: cut(held.modified),
    deleted: cut(held.deleted),
    omitted: { created: over(held.created), modified: over(held.modified), deleted: over(held.deleted) },
  };
};

const name = (prefix: string, index: number) => `${prefix}${String(index).padStart(4, '0')}.txt`;

/** Runs one case; each violation says what an approver approved that differs from what applied. */
export async function runLongChangeListCase(
  securityCase: LongChangeListCase,
  options: {
    tools: ToolExecutor;
    runRoot: string;
    keyPrefix: string;
    judge?: ChangeSetJudge;
    shown?: ShownList;
  },
): Promise<string[]> {
  const judge = options.judge ?? checkChangeSet;
  const root = mkdtempSync(path.join(options.runRoot, 'lists-'));
  try {
    const workspace = path.join(root, 'project');
    mkdirSync(workspace);
    for (let index = 1; index <= securityCase.existing.deleted; index += 1)
      writeFileSync(path.join(workspace, name('d', index)), 'old\n');
    for (let index = 1; index <= securityCase.existing.modified; index += 1)
      writeFileSync(path.join(workspace, name('m', index)), 'old\n');
    const parts = ['rm d*.txt'];
    if (securityCase.existing.modified > 0) parts.push('for f in m*.txt; do echo new >> "$f"; done');
    if (securityCase.created > 0)
      parts.push(`for i in $(seq -w 1 ${securityCase.created}); do echo new > c$i.txt; done`);
    if (securityCase.createdTree !== undefined && securityCase.createdTree > 0)
      parts.push(`mkdir tree && for i in $(seq 1 ${securityCase.createdTree}); do echo x > tree/t$i; done`);
    if (securityCase.createdTree === 0) parts.push('git init -q . && echo x > .git/description');
    if (securityCase.emptyDirectories !== undefined)
      parts.push(
        `mkdir -p $(seq -f 'empty%g' 1 ${securityCase.emptyDirectories}) nested/empty fifo-only && mkfifo fifo-only/pipe`,
      );
    if (securityCase.longNames !== undefined)
      parts.push(
        `p=$(head -c 190 /dev/zero | tr '\\0' n); for i in $(seq -w 1 ${securityCase.longNames}); do echo x > "$p$i"; done`,
      );
    const command = parts.join('; ');
    const before = snapshotTree(workspace);
    const changedSince = () => diffTrees(before, snapshotTree(workspace)).map((change) => change.path);
    const callKey = `${options.keyPrefix}/${securityCase.id}`;
    const call = { callId: 'call-1', toolName: 'run_command', input: { command } };
    const [prepared] = await options.tools.prepareToolCalls({ calls: [call], sandbox: { network: false } });
    if (!prepared?.ok)
      return [`the call was not prepared: ${prepared?.ok === false ? 'refused' : 'no answer'}`];
    const outcome = (await options.tools.executeTool({
      ...call,
      input: prepared.input,
      workspace,
      idempotencyKey: callKey,
      reversibility: prepared.tier,
      approved: false,
      sandbox: { network: false },
    })) as { escalation?: { held?: { changes: WorkspaceEffects } } };
    const held = outcome.escalation?.held?.changes;
    if (held === undefined) {
      // Nothing held: nothing may have changed either (the command deletes a file that existed).
      const changed = changedSince();
      if (changed.length > 0)
        return [
          `nothing was held for a human, yet ${changed.length} paths changed, e.g. ${changed.slice(0, 3).join(', ')}`,
        ];
      return securityCase.longNames === undefined ? ['nothing was held for a human to approve'] : [];
    }
    if (securityCase.longNames !== undefined) {
      await discardHeldLayer({ workspace, callKey });
      const paths = held.created.length + held.modified.length + held.deleted.length;
      return [`a list over the byte bound was held for a human (${paths} paths) instead of discarded whole`];
    }
    const shown = (options.shown ?? ((changes) => changes))(held);
    const violations: string[] = [];
    const unlisted = unlistedChanges(shown);
    if (unlisted > 0) violations.push(`the list shown left ${unlisted} paths unnamed (only counted)`);
    // An approval naming another set: the list shown without its last path (or with one more).
    const other: WorkspaceEffects =
      shown.deleted.length > 0
        ? { ...shown, deleted: shown.deleted.slice(0, -1) }
        : { ...shown, created: [...shown.created, 'unlisted.txt'] };
    if (judge({ approved: true, held, digest: changeSetDigest(other) }).ok)
      violations.push('an approval naming a change set other than the one held was accepted');
    const judged = judge({ approved: true, held, digest: changeSetDigest(shown) });
    if (!judged.ok) {
      await discardHeldLayer({ workspace, callKey });
      if (unlisted === 0)
        violations.push(`the approval of the fully listed set it was shown was refused: ${judged.message}`);
      const changed = changedSince();
      if (changed.length > 0) violations.push(`refused, yet ${changed.length} paths changed`);
      return violations;
    }
    await applyHeldLayer({ workspace, callKey });
    const named = new Set(
      [...shown.deleted, ...shown.modified, ...shown.created].map((entry) => entry.replace(/\/$/, '')),
    );
    // "inside .git/: 12 entries" names the directory and counts what is in it.
    const collapsed = Object.keys(shown.collapsed ?? {});
    for (const directory of collapsed) named.add(directory.replace(/\/$/, ''));
    const changed = changedSince();
    const unnamed = changed
      .filter((path) => !named.has(path) && !collapsed.some((directory) => path.startsWith(directory)))
      .filter((path) => ![...named].some((listed) => path.startsWith(`${listed}/`)))
      // A new directory is named by the paths listed inside it.
      .filter((path) => ![...named].some((listed) => listed.startsWith(`${path}/`)));
    if (unnamed.length > 0)
      violations.push(
        `an approval of the list it was shown applied ${unnamed.length} paths that list did not name, e.g. ${unnamed.slice(0, 3).join(', ')}`,
      );
    const changedSet = new Set(changed);
    const unapplied = [...named].filter((listed) => !changedSet.has(listed));
    if (unapplied.length > 0)
      violations.push(
        `an approval of the list it was shown left ${unapplied.length} listed paths unchanged, e.g. ${unapplied.slice(0, 3).join(', ')}`,
      );
    return violations;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
