import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { Reversibility } from '../../workflows/tools/reversibility';
import { TOOL_NAME_PATTERN } from '../../workflows/tools/tool-catalogue';
import { suggestCall } from '../../workflows/tools/suggest-call';
import type { ToolOutcome } from '../../workflows/tools/tool-outcome';
import type { ToolLogger } from '../tools/define-tool';
import { defaultSummary, type RegisteredTool } from '../tools/registered-tool';
import { failure } from '../tools/tool-outcomes';
import { hasHypothesisProperty, splitHypothesis, withHypothesisProperty } from '../tools/hypothesis-input';
import type { McpServerConfig } from './mcp-config';
import type { McpConnection } from './mcp-connection';
import { contentToOutcomeParts } from './mcp-content';
import { describeError, isTimeout } from './mcp-errors';
import { tierFromAnnotations } from './mcp-tier';

/** The MCP SDK's own default, kept explicit so the activity's timeout can be set past it. */
export const DEFAULT_MCP_CALL_TIMEOUT_MS = 60_000;

/**
 * Margin between the MCP request timeout and the activity's start-to-close timeout: the request
 * is cut first, so the model reads a failure with next actions instead of the activity failing.
 */
const ACTIVITY_TIMEOUT_MARGIN_MS = 5_000;

/** `files` + `read_text_file` → `files__read_text_file`: the server's name keeps tools apart. */
export function mcpToolName(server: string, tool: string): string {
  return `${server}__${tool}`;
}

export function mcpSource(server: string): string {
  return `mcp:${server}`;
}

/**
 * A server's tools as keel runs them. A tool whose name cannot be offered to the model (too long,
 * or characters the API refuses) is skipped with a warning rather than renamed: a renamed tool
 * could collide with another, and the user could not find it by the name the server gives.
 */
export function registeredMcpTools(options: {
  server: string;
  config: McpServerConfig;
  tools: readonly Tool[];
  connection: McpConnection;
  log: ToolLogger;
}): RegisteredTool[] {
  const { server, config, tools, log } = options;
  const offered = tools.filter((tool) => {
    if (TOOL_NAME_PATTERN.test(mcpToolName(server, tool.name))) return true;
    log.warn(
      `MCP server "${server}": tool "${tool.name}" is skipped: "${mcpToolName(server, tool.name)}" is not a tool name the model API accepts (1-64 letters, digits, _ or -)`,
    );
    return false;
  });
  const readOnly = offered.filter(
    (tool) =>
      tierFromAnnotations(tool.annotations, config.tools?.[tool.name]?.reversibility).tier ===
      Reversibility.ReadOnly,
  );
  return offered.map((tool) => registeredMcpTool({ ...options, tool, readOnlyTools: readOnly }));
}

function registeredMcpTool(options: {
  server: string;
  config: McpServerConfig;
  tool: Tool;
  connection: McpConnection;
  readOnlyTools: readonly Tool[];
}): RegisteredTool {
  const { server, config, tool, connection } = options;
  const name = mcpToolName(server, tool.name);
  const decision = tierFromAnnotations(tool.annotations, config.tools?.[tool.name]?.reversibility);
  const requestTimeout = config.timeoutMs ?? DEFAULT_MCP_CALL_TIMEOUT_MS;
  const candidates = failureCandidates({ server, name, tool, readOnlyTools: options.readOnlyTools });
  // Sent as the server gives it (the server validates arguments itself), with keel's hypothesis
  // field added like the built-ins' unless the server has its own or the config opts out; the
  // server is never sent it, so a strict schema (additionalProperties: false) still holds.
  const schema: Record<string, unknown> = { ...tool.inputSchema, type: 'object' };
  const addsHypothesis = config.tools?.[tool.name]?.hypothesis !== false && !hasHypothesisProperty(schema);
  return {
    name,
    description: tool.description ?? tool.title ?? `${tool.name} (from the MCP server "${server}")`,
    source: mcpSource(server),
    inputJsonSchema: addsHypothesis ? withHypothesisProperty(schema) : schema,
    tier: { kind: 'fixed', tier: decision.tier },
    ...(config.timeoutMs === undefined ? {} : { timeoutMs: config.timeoutMs + ACTIVITY_TIMEOUT_MARGIN_MS }),
    parse(raw) {
      if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
        return { ok: false, error: `Invalid input for ${name}: the arguments must be a JSON object.` };
      const split = addsHypothesis ? splitHypothesis(raw) : undefined;
      if (split?.ok === false) return { ok: false, error: `Invalid input for ${name}: ${split.error}.` };
      return { ok: true, input: raw };
    },
    decideTier: () => ({ tier: decision.tier, reason: `${name}: ${decision.reason}` }),
    summarize: (input) => defaultSummary(name, input),
    async execute(input, context): Promise<ToolOutcome> {
      const split = addsHypothesis ? splitHypothesis(input) : undefined;
      const argumentsSent = (split?.ok === true ? split.rest : input) as Record<string, unknown>;
      try {
        const result = await connection.callTool(tool.name, argumentsSent, {
          signal: context.signal,
          timeout: requestTimeout,
          onprogress: (progress) => context.heartbeat(progress),
        });
        const { content, images } = contentToOutcomeParts(result);
        const imagesPart = images.length > 0 ? { images } : {};
        if (result.isError === true) {
          return {
            ...failure({ content: `${name} failed: ${content}`, candidates: candidates.refused }),
            ...imagesPart,
          };
        }
        return { ok: true, content, candidates: [], facts: {}, ...imagesPart };
      } catch (error) {
        if (context.signal.aborted) throw error; // cancellation stays a cancellation
        if (isTimeout(error)) {
          return failure({
            content: `${name} did not answer within ${requestTimeout} ms and was cut off.`,
            candidates: candidates.timedOut,
          });
        }
        return failure({
          content: `${name} failed: ${describeError(error)}`,
          candidates: candidates.unreachable,
        });
      }
    },
  };
}

/** Concrete next actions per kind of failure, naming the server's own read-only tools. */
function failureCandidates(options: {
  server: string;
  name: string;
  tool: Tool;
  readOnlyTools: readonly Tool[];
}): { refused: string[]; timedOut: string[]; unreachable: string[] } {
  const { server, name } = options;
  const required = options.tool.inputSchema.required ?? [];
  // Prefer read-only tools the model can call as they are (no required arguments), listing ones first.
  const rank = (tool: Tool) =>
    ((tool.inputSchema.required ?? []).length === 0 ? 0 : 2) + (tool.name.startsWith('list') ? 0 : 1);
  const lookers = [...options.readOnlyTools]
    .sort((a, b) => rank(a) - rank(b))
    .slice(0, 2)
    .map((tool) =>
      (tool.inputSchema.required ?? []).length === 0
        ? suggestCall(mcpToolName(server, tool.name), {})
        : mcpToolName(server, tool.name),
    );
  const look =
    lookers.length > 0
      ? `Look at what exists first with ${lookers.join(' or ')} (read-only), then retry with values that exist`
      : `Reach the goal without ${name}, e.g. with your other tools`;
  const argumentsCheck = `Check the arguments against ${name}'s input schema${required.length > 0 ? ` (required: ${required.join(', ')})` : ''} and call it again corrected`;
  return {
    refused: [argumentsCheck, look, 'Try another approach that does not depend on this call'],
    timedOut: [
      `Call ${name} again with a smaller request (fewer items, a narrower path)`,
      `Check whether the call took effect before repeating it: it may have finished on the server`,
      look,
    ],
    unreachable: [
      `Call ${name} again once: keel reconnects to the MCP server "${server}" on the next call`,
      `Reach the goal without the "${server}" server, using your other tools`,
      'Explain in your answer that the server was unavailable, so the user can act on it',
    ],
  };
}
