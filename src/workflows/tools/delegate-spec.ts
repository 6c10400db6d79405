import { z } from 'zod';

/**
 * The `delegate` harness tool (issue 47): the model hands a task to a child goal with a subset of
 * its tools, a slice of its budget and a workspace scope, and reads the child's answer as the
 * tool's result. The workflow runs it (goal/tool-calls/delegation.ts): no activity, no approval —
 * the child's own calls are decided as any goal's are.
 */
export const DELEGATE_TOOL = 'delegate';

export const DelegateWorkspace = { Shared: 'shared', ReadOnly: 'read-only', Copy: 'copy' } as const;
export type DelegateWorkspace = (typeof DelegateWorkspace)[keyof typeof DelegateWorkspace];
export const delegateWorkspaceSchema = z.enum([
  DelegateWorkspace.Shared,
  DelegateWorkspace.ReadOnly,
  DelegateWorkspace.Copy,
]);

export const delegateBudgetSchema = z
  .object({
    maxUsd: z.number().positive().describe('The most the child may spend, in USD.').optional(),
    maxTokens: z.number().int().positive().describe('The most tokens the child may use.').optional(),
    maxToolCalls: z.number().int().positive().describe('The most tool calls the child may make.').optional(),
    maxTurns: z
      .number()
      .int()
      .positive()
      .max(500)
      .describe('The most model turns the child may take.')
      .optional(),
  })
  .strict();
export type DelegateBudget = z.infer<typeof delegateBudgetSchema>;

export const delegateInputSchema = z
  .object({
    task: z
      .string()
      .trim()
      .min(1)
      .max(20_000)
      .describe(
        'What the child goal is to achieve, complete in itself: the child sees nothing else of yours.',
      ),
    successCriteria: z
      .array(z.string().trim().min(1))
      .max(20)
      .default([])
      .describe('How to tell the task is done; the child checks its work against them.'),
    tools: z
      .array(z.string().min(1))
      .min(1)
      .max(200)
      .optional()
      .describe('The tools the child may use, by name: a subset of yours. All of yours when omitted.'),
    budget: delegateBudgetSchema
      .default({})
      .describe("The child's slice of your remaining budget; it never gets more than you have left."),
    workspace: delegateWorkspaceSchema
      .default(DelegateWorkspace.Shared)
      .describe(
        'shared: the child works in your workspace (children that change it run one at a time). read-only: it may only read it, with your read-only tools, and runs alongside others. copy: it works in its own copy and runs alongside others; when it completes, its changes come back where you (or another child) did not change the same file since, and any overlap is shown to you to resolve.',
      ),
    folder: z
      .string()
      .trim()
      .min(1)
      .max(1000)
      .optional()
      .describe(
        'With workspace "copy": the child gets a copy of only this folder of your workspace (relative, e.g. "services/api") and its changes come back into it.',
      ),
  })
  .strict()
  .superRefine((input, context) => {
    if (input.folder === undefined) return;
    if (input.workspace !== DelegateWorkspace.Copy)
      context.addIssue({ code: 'custom', path: ['folder'], message: 'folder needs workspace "copy"' });
    else if (!isRelativeFolder(input.folder))
      context.addIssue({
        code: 'custom',
        path: ['folder'],
        message:
          'folder must be a folder inside your workspace, relative, without ".." (e.g. "services/api")',
      });
  });
export type DelegateInput = z.infer<typeof delegateInputSchema>;

/** A path inside the workspace: relative, no "..", not the workspace itself. */
function isRelativeFolder(folder: string): boolean {
  if (folder.startsWith('/') || folder.includes('\\') || folder.includes('\0')) return false;
  const segments = folder.split('/').filter((segment) => segment !== '' && segment !== '.');
  return segments.length > 0 && !segments.includes('..');
}

export const DELEGATE_DESCRIPTION =
  "Hand a self-contained task to a child agent and get its final answer back as this tool's result. Use it for work that would crowd your context or that can proceed on its own (research, a separate module). The child starts with only the task, its success criteria and the tools you give it; its spend counts against your budget. Several delegate calls in one turn run at once when their workspace is read-only or copy; give each of them a budget slice, or the first holds all you have left and the others wait for it.";
