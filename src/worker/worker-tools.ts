/**
 * The worker's tools: the built-ins, the user's own and its MCP servers', assembled into the
 * registry its activities run them from; and, per worker, the tools it offers now (keelToolsOf).
 */
import type { Worker } from '@temporalio/worker';
import type * as McpModule from '../activities/mcp';
import type { McpServers } from '../activities/mcp';
import { loadKeelConfig, validateKeelConfig } from '../config/keel-config';
import { builtinTools } from '../activities/tools/builtin';
import { registeredFromDefinition } from '../activities/tools/registered-tool';
import { ToolRegistry } from '../activities/tools/tool-registry';
import type { ToolCatalogue } from '../workflows/tools/tool-catalogue';
import type { KeelWorkerOptions } from './keel-worker-options';
import { workerLog } from './worker-log';

/**
 * The worker's tools: the built-ins and the user's own. Every problem (a duplicate name, a name
 * the model API refuses, a schema that does not convert) is one error naming the tool, at start.
 */
export function createToolRegistry(options: Pick<KeelWorkerOptions, 'tools' | 'builtinTools'>): ToolRegistry {
  const builtins = options.builtinTools === false ? [] : builtinTools;
  return new ToolRegistry([
    ...builtins.map((tool) => registeredFromDefinition(tool, 'builtin')),
    ...(options.tools ?? []).map((tool) => registeredFromDefinition(tool, 'worker')),
  ]);
}

/**
 * The registry of createToolRegistry with the tools of the configured MCP servers added, and the
 * servers (undefined when there are none), which the caller closes; a server that re-lists its
 * tools changes the registry. When the servers' tools cannot be added, the servers are closed.
 */
export async function assembleWorkerTools(
  options: Pick<KeelWorkerOptions, 'tools' | 'builtinTools' | 'mcpServers'>,
  env: NodeJS.ProcessEnv,
): Promise<{ toolRegistry: ToolRegistry; mcp: McpServers | undefined }> {
  const toolRegistry = createToolRegistry(options);
  const mcp = await connectConfiguredMcpServers(options.mcpServers, env);
  try {
    toolRegistry.add(mcp?.tools ?? []);
  } catch (error) {
    await mcp?.close();
    throw error;
  }
  mcp?.onToolsChanged((change) => {
    try {
      toolRegistry.replaceSource(change.source, change.tools);
    } catch (error) {
      // Goals keep the tools they recorded; new goals keep getting the last good list.
      console.warn(
        `keel worker: ${change.source} re-listed tools that could not be registered: ${String(error)}`,
      );
    }
  });
  return { toolRegistry, mcp };
}

/** The servers of the options, or of the config file; undefined when there are none. */
async function connectConfiguredMcpServers(
  given: KeelWorkerOptions['mcpServers'],
  env: NodeJS.ProcessEnv,
): Promise<McpServers | undefined> {
  if (given === false) return undefined;
  const config =
    given === undefined
      ? loadKeelConfig({ cwd: process.cwd(), env }).config
      : validateKeelConfig({ mcpServers: given }, 'createKeelWorker mcpServers');
  const servers = config.mcpServers;
  if (servers === undefined || Object.keys(servers).length === 0) return undefined;
  // Loaded only here: the MCP SDK is a fifth of what a worker loads at start, and most workers
  // have no servers. require, not import(): the launcher's source path (tsx/cjs) cannot resolve one.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { connectMcpServers } = require('../activities/mcp') as typeof McpModule;
  return connectMcpServers({ servers, env, log: workerLog });
}

const registries = new WeakMap<Worker, ToolRegistry>();

/** Remembers the registry a worker createKeelWorker made runs its tools from (see keelToolsOf). */
export function rememberToolsOf(worker: Worker, toolRegistry: ToolRegistry): void {
  registries.set(worker, toolRegistry);
}

/**
 * The tools a worker createKeelWorker made offers now (undefined for any other worker): what
 * `keel tools` reads through Temporal, for the start log and embedders. MCP servers that re-list
 * their tools change it.
 */
export function keelToolsOf(worker: Worker): ToolCatalogue | undefined {
  const selection = registries.get(worker)?.catalogue();
  return selection?.ok ? selection.catalogue : undefined;
}
