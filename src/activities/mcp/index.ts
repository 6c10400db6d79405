/** keel's MCP client: configured servers' tools as RegisteredTools (see docs/tools-and-mcp.md, "MCP servers"). */
export { connectMcpServers, type McpServers, type McpToolsChange } from './mcp-servers';
export {
  mcpServerConfigSchema,
  mcpServersConfigSchema,
  type McpServerConfig,
  type McpServersConfig,
} from './mcp-config';
export { McpServerError, MCP_SERVER_ERROR } from './mcp-errors';
export { mcpToolName, mcpSource } from './mcp-tool';
export { tierFromAnnotations } from './mcp-tier';
