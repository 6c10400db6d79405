import picomatch from 'picomatch';
import { TOOL_NAME_PATTERN, type ToolCatalogue } from '../../workflows/tools/tool-catalogue';
import { ToolDefinitionError } from './define-tool';
import type { RegisteredTool } from './registered-tool';

/**
 * Every tool one worker can run, by name. Built once at worker start, where each problem is one
 * clear error naming the tool; MCP servers may replace their own tools later (list_changed).
 */
export class ToolRegistry {
  private readonly tools = new Map<string, RegisteredTool>();

  constructor(tools: readonly RegisteredTool[] = []) {
    this.add(tools);
  }

  /** Adds tools; a name the model API refuses, or one already taken, is an error. */
  add(tools: readonly RegisteredTool[]): void {
    const adding = new Map<string, RegisteredTool>();
    for (const tool of tools) {
      if (!TOOL_NAME_PATTERN.test(tool.name)) {
        throw new ToolDefinitionError(
          `tool "${tool.name}" (${tool.source}): the model API allows only 1-64 letters, digits, _ or - in a tool name`,
        );
      }
      const taken = this.tools.get(tool.name) ?? adding.get(tool.name);
      if (taken !== undefined) {
        throw new ToolDefinitionError(
          `tool "${tool.name}" is registered twice (${taken.source} and ${tool.source}): tool names must be unique`,
        );
      }
      adding.set(tool.name, tool);
    }
    for (const tool of tools) this.tools.set(tool.name, tool);
  }

  /** Replaces every tool of one source (an MCP server that re-listed its tools). */
  replaceSource(source: string, tools: readonly RegisteredTool[]): void {
    const kept = [...this.tools.values()].filter((tool) => tool.source !== source);
    const previous = new Map(this.tools);
    this.tools.clear();
    try {
      this.add(kept);
      this.add(tools);
    } catch (error) {
      this.tools.clear();
      for (const [name, tool] of previous) this.tools.set(name, tool);
      throw error;
    }
  }

  get(name: string): RegisteredTool | undefined {
    return this.tools.get(name);
  }

  names(): string[] {
    return [...this.tools.keys()];
  }

  /**
   * The catalogue a goal records at its start: every tool, or those matching the goal's globs
   * (e.g. "read_file", "github__*"). A pattern that matches nothing is an error, not a silently
   * smaller catalogue: it is almost always a typo.
   */
  catalogue(patterns?: readonly string[]): CatalogueSelection {
    const all = [...this.tools.values()];
    let chosen = all;
    if (patterns !== undefined) {
      const unmatched: string[] = [];
      const matchers = patterns.map((pattern) => {
        const matcher = picomatch(pattern);
        if (!all.some((tool) => matcher(tool.name))) unmatched.push(pattern);
        return matcher;
      });
      if (unmatched.length > 0) {
        return {
          ok: false,
          error: `no tool matches ${unmatched.map((pattern) => `"${pattern}"`).join(', ')}; this worker has: ${this.names().join(', ')}`,
        };
      }
      chosen = all.filter((tool) => matchers.some((matcher) => matcher(tool.name)));
    }
    return {
      ok: true,
      catalogue: chosen.map((tool) => ({
        name: tool.name,
        description: tool.description,
        inputSchema: tool.inputJsonSchema,
        tier: tool.tier,
        ...(tool.timeoutMs === undefined ? {} : { timeoutMs: tool.timeoutMs }),
        source: tool.source,
      })),
    };
  }
}

export type CatalogueSelection = { ok: true; catalogue: ToolCatalogue } | { ok: false; error: string };
