import { z } from 'zod';
import { reversibilityTierSchema } from '../../workflows/tools/tool-catalogue';

/** A server's name becomes its tools' prefix (`files__read_text_file`), so it obeys the tool-name rule. */
export const MCP_SERVER_NAME_PATTERN = /^[a-zA-Z0-9_-]{1,40}$/;

/** An environment variable's name, as a shell would accept it. */
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** keel's own model key: an MCP server never receives it, whatever the config says. */
export const FORBIDDEN_SERVER_VARIABLES: readonly string[] = ['ANTHROPIC_API_KEY'];

const envName = z
  .string()
  .regex(ENV_NAME_PATTERN, 'is not an environment variable name')
  .refine((name) => !FORBIDDEN_SERVER_VARIABLES.includes(name), {
    message: 'is keel’s own model key and is never passed to an MCP server',
  });

const toolOverrideSchema = z.strictObject({
  /** Wins over the tier the server's annotations imply. */
  reversibility: reversibilityTierSchema.optional(),
  /** `false`: the tool is not offered keel's `hypothesis` field (offered by default, never sent to the server). */
  hypothesis: z.boolean().optional(),
});

/**
 * One entry under `mcpServers`: either `command` (a stdio server keel starts) or `url` (a
 * Streamable HTTP server). One object rather than a union of two, so an unknown key or a key of
 * the other kind is reported by name instead of as "no union member matched".
 */
export const mcpServerConfigSchema = z
  .strictObject({
    command: z.string().min(1).optional(),
    args: z.array(z.string()).optional(),
    /** Names of the worker's variables the server may see (besides PATH); values are never written here. */
    env: z.array(envName).optional(),
    cwd: z.string().min(1).optional(),
    url: z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' }).optional(),
    /** Header name → the NAME of the worker's environment variable holding its value. */
    headers: z
      .record(z.string().regex(/^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/, 'is not a header name'), envName)
      .optional(),
    /** Per-call timeout: the MCP request is cut after this long and the model reads a failure. */
    timeoutMs: z.number().int().positive().optional(),
    /** How long connecting and listing tools may take at worker start (default 30 s). */
    startupTimeoutMs: z.number().int().positive().optional(),
    tools: z.record(z.string(), toolOverrideSchema).optional(),
  })
  .superRefine((server, context) => {
    const hasCommand = server.command !== undefined;
    const hasUrl = server.url !== undefined;
    if (hasCommand === hasUrl) {
      context.addIssue({
        code: 'custom',
        message: hasCommand
          ? 'give either "command" (stdio) or "url" (Streamable HTTP), not both'
          : 'give "command" (a stdio server to start) or "url" (a Streamable HTTP server)',
      });
      return;
    }
    const foreign = hasCommand ? (['headers'] as const) : (['args', 'env', 'cwd'] as const);
    for (const key of foreign) {
      if (server[key] !== undefined) {
        context.addIssue({
          code: 'custom',
          path: [key],
          message: hasCommand ? 'applies to url servers only' : 'applies to command (stdio) servers only',
        });
      }
    }
  });
export type McpServerConfig = z.infer<typeof mcpServerConfigSchema>;

export const mcpServersConfigSchema = z.record(
  z.string().regex(MCP_SERVER_NAME_PATTERN, 'is not a server name: use 1-40 letters, digits, _ or -'),
  mcpServerConfigSchema,
);
export type McpServersConfig = z.infer<typeof mcpServersConfigSchema>;
