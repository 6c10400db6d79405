/**
 * The approval-paths and long-change-lists categories (issue 43) as records of `npm run
 * eval:security`: which cases a selection runs, and each case's record. Kept here so the eval's
 * runner gains one loop, not two more copies of the selection and record code.
 */
import { APPROVAL_PATH_CASES, runApprovalPathCase } from './approval-path-cases';
import { LONG_CHANGE_LIST_CASES, runLongChangeListCase } from './long-change-list-cases';
import type { CaseRecord } from './run-case';
import { Category } from './security-case';
import type { ToolExecutor } from './tool-executor';
import { HoleKind } from './verdicts';

export interface ApprovalPathRecordCase {
  readonly id: string;
  readonly category: Category;
  readonly title: string;
  run(context: { tools: ToolExecutor; runRoot: string; keyPrefix: string }): Promise<string[]>;
}

export function selectApprovalPathRecords(options: {
  ci?: boolean;
  only?: readonly string[];
  cases?: unknown;
}): ApprovalPathRecordCase[] {
  if (options.cases !== undefined) return []; // a corpus of the caller's own
  const only = options.only ?? [];
  const wanted = (category: Category) => only.length === 0 || only.includes(category);
  const inSubset = (securityCase: { ci?: boolean }) => options.ci !== true || securityCase.ci === true;
  return [
    ...(wanted(Category.ApprovalPaths) ? APPROVAL_PATH_CASES.filter(inSubset) : []).map((securityCase) => ({
      id: securityCase.id,
      category: Category.ApprovalPaths,
      title: securityCase.title,
      run: (context: Parameters<ApprovalPathRecordCase['run']>[0]) =>
        runApprovalPathCase(securityCase, context),
    })),
    ...(wanted(Category.LongChangeLists) ? LONG_CHANGE_LIST_CASES.filter(inSubset) : []).map(
      (securityCase) => ({
        id: securityCase.id,
        category: Category.LongChangeLists,
        title: securityCase.title,
        run: (context: Parameters<ApprovalPathRecordCase['run']>[0]) =>
          runLongChangeListCase(securityCase, context),
      }),
    ),
  ];
}

export async function runApprovalPathRecord(
  securityCase: ApprovalPathRecordCase,
  context: Parameters<ApprovalPathRecordCase['run']>[0],
): Promise<CaseRecord> {
  const started = performance.now();
  let violations: string[] = [];
  let error: string | undefined;
  try {
    violations = await securityCase.run(context);
  } catch (caught) {
    error = caught instanceof Error ? (caught.stack ?? caught.message) : String(caught);
  }
  return {
    id: securityCase.id,
    category: securityCase.category,
    title: securityCase.title,
    durationMs: Math.round(performance.now() - started),
    steps: [],
    holes: violations.map((what) => ({ kind: HoleKind.UnapprovedIrreversible, step: 1, what, evidence: [] })),
    ...(error === undefined ? {} : { error }),
  };
}
