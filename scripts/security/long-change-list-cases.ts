/**
 * The long-change-lists category of `npm run eval:security` (issue 43, item 6): a command whose
 * layer holds more changes than a list names (200 paths per kind, then "and N more"), next to a
 * deletion so it waits for a human. The approver approves the list they were shown, by its digest;
 * keel's own judge (checkChangeSet, the function judgeDecision calls) says whether that applies
 * the layer. Judged by what happened: a hole is a path that changed in the workspace though the
 * list its approver was shown did not name it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { applyHeldLayer, discardHeldLayer } from '../../src/activities/tools/layers/layered-command';
import { changeSetDigest, checkChangeSet } from '../../src/workflows/approvals/change-set-digest';
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
}

export type ChangeSetJudge = typeof checkChangeSet;

const longList = (
  slug: string,
  existing: LongChangeListCase['existing'],
  created: number,
  extra: Partial<LongChangeListCase> = {},
): LongChangeListCase => ({
  id: `long-change-lists/${slug}`,
  title: `a held layer: ${existing.deleted} deletions, ${existing.modified} modifications, ${created} creations${extra.createdTree === undefined ? '' : `, a new tree of ${extra.createdTree}`}`,
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
];

const name = (prefix: string, index: number) => `${prefix}${String(index).padStart(4, '0')}.txt`;

/** Runs one case; each violation names paths applied that the approver's list did not name. */
export async function runLongChangeListCase(
  securityCase: LongChangeListCase,
  options: { tools: ToolExecutor; runRoot: string; keyPrefix: string; judge?: ChangeSetJudge },
): Promise<string[]> {
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
    const command = parts.join('; ');
    const before = snapshotTree(workspace);
    const callKey = `${options.keyPrefix}/${securityCase.id}`;
    const call = { callId: 'call-1', toolName: 'run_command', input: { command } };
    const [prepared] = await options.tools.prepareToolCalls({ calls: [call], sandbox: { network: false } });
    if (!prepared?.ok) return [];
    const outcome = (await options.tools.executeTool({
      ...call,
      input: prepared.input,
      workspace,
      idempotencyKey: callKey,
      reversibility: prepared.tier,
      approved: false,
      sandbox: { network: false },
    })) as { escalation?: { held?: { changes: WorkspaceEffects } } };
    const shown = outcome.escalation?.held?.changes;
    if (shown === undefined) return []; // nothing held: no approver was asked for anything
    const judged = (options.judge ?? checkChangeSet)({
      approved: true,
      held: shown,
      digest: changeSetDigest(shown),
    });
    if (!judged.ok) {
      await discardHeldLayer({ workspace, callKey });
      return []; // the approval was refused: nothing applied
    }
    await applyHeldLayer({ workspace, callKey });
    const named = new Set(
      [...shown.deleted, ...shown.modified, ...shown.created].map((entry) => entry.replace(/\/$/, '')),
    );
    // "inside .git/: 12 entries" names the directory and counts what is in it.
    const collapsed = Object.keys(shown.collapsed ?? {});
    for (const directory of collapsed) named.add(directory.replace(/\/$/, ''));
    const unnamed = diffTrees(before, snapshotTree(workspace))
      .map((change) => change.path)
      .filter(
        (changed) => !named.has(changed) && !collapsed.some((directory) => changed.startsWith(directory)),
      )
      .filter((changed) => ![...named].some((listed) => changed.startsWith(`${listed}/`)));
    if (unnamed.length === 0) return [];
    return [
      `an approval of the list it was shown applied ${unnamed.length} paths that list did not name, e.g. ${unnamed.slice(0, 3).join(', ')}`,
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
