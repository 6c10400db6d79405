import { z } from 'zod';

/** Files a call created, modified or deleted in the workspace (effect detection). */
export const workspaceEffectsSchema = z.lazy(() =>
  z.object({
    created: z.array(z.string()),
    modified: z.array(z.string()),
    deleted: z.array(z.string()),
    /** Paths of each kind left out of the lists above (a call that makes thousands of files). */
    omitted: z
      .object({ created: z.number().int(), modified: z.number().int(), deleted: z.number().int() })
      .optional(),
    /**
     * Changes inside `.git/` and `node_modules/` directories, counted per directory rather than
     * listed (a commit writes dozens of objects): e.g. { ".git/": 12 }.
     */
    collapsed: z.record(z.string(), z.number().int()).optional(),
    /**
     * What the changed files hold afterwards, as one digest (path and content): two calls that leave
     * the workspace in the same state have the same digest, so the guards can tell a new state from
     * a return to an old one (issue 22). Set by the file tools, which know the content they wrote.
     */
    stateDigest: z.string().optional(),
  }),
);
export type WorkspaceEffects = z.infer<typeof workspaceEffectsSchema>;

/**
 * The worker found that a call needs a human after all: a change its tier does not allow (see
 * workspace-change-policy.ts), or no sandbox on this worker to hold it to its tier. The workflow
 * asks for an approval; until one comes nothing of the call reaches the workspace.
 */
export const escalationSchema = z.lazy(() =>
  z.object({
    /** Why, in words for the approver and the ledger. */
    reason: z.string(),
    /**
     * The call ran on a copy-on-write layer that keeps these changes: approval applies them, a
     * denial discards them. Absent: the call did not run, and approval runs it.
     */
    held: z
      .object({
        changes: workspaceEffectsSchema,
        /** The changes as a unified diff, cut short when long (activities/tools/layers/held-diff.ts). */
        diff: z.string().optional(),
      })
      .optional(),
  }),
);
export type Escalation = z.infer<typeof escalationSchema>;

/** The image types the Messages API takes; a tool's other images are described in text instead. */
export const MODEL_IMAGE_TYPES = ['image/jpeg', 'image/png', 'image/gif', 'image/webp'] as const;
export const toolImageSchema = z.lazy(() =>
  z.object({ mediaType: z.enum(MODEL_IMAGE_TYPES), data: z.string() }),
);
/** A PDF the model reads as a `document` block (read_file), base64 without a data: prefix. */
export const toolDocumentSchema = z.lazy(() =>
  z.object({ mediaType: z.literal('application/pdf'), data: z.string() }),
);

/**
 * What a tool activity returns to the workflow. Tool failures are outcomes, never exceptions:
 * the model reads them and decides what to do next, and the goal goes on.
 */
export const toolOutcomeSchema = z.lazy(() =>
  z.object({
    ok: z.boolean(),
    /** The text the model reads as the tool result. */
    content: z.string(),
    /** 2-3 concrete next actions the tool itself suggests when it failed (principle 2). */
    candidates: z.array(z.string()).default([]),
    /** Machine-readable facts about the result, for the hypothesis comparator. */
    facts: z
      .object({
        exitCode: z.number().int().optional(),
        matchCount: z.number().int().nonnegative().optional(),
        emptyOutput: z.boolean().optional(),
        bytes: z.number().int().nonnegative().optional(),
        truncated: z.boolean().optional(),
      })
      .default({}),
    effects: workspaceEffectsSchema.optional(),
    /** Images the model sees with the result (MCP image contents), base64 without a data: prefix. */
    images: z.array(toolImageSchema).optional(),
    /** PDFs the model reads with the result (read_file of a .pdf). */
    documents: z.array(toolDocumentSchema).optional(),
    /** The host whose worker ran the call (KEEL_HOST_ID), stamped by the tool activity. */
    host: z.string().optional(),
    /**
     * The worker process that ran it (its instance id, as in its Temporal identity): two machines
     * serving one host id show here as two instances.
     */
    instance: z.string().optional(),
    /** Set when the call needs a human's approval before anything of it reaches the workspace. */
    escalation: escalationSchema.optional(),
    /**
     * Files changed outside keel since its last write, seen by the turn's checkpoint before this
     * call ran (issue 48): how many, and the first of their paths.
     */
    outsideChanges: z.object({ count: z.number().int().positive(), paths: z.array(z.string()) }).optional(),
  }),
);
export type ToolOutcome = z.infer<typeof toolOutcomeSchema>;
