import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

export const MCP_SERVER_ERROR = 'McpServerError';

/** A server that cannot be used at worker start: one line naming it and what went wrong. */
export class McpServerError extends Error {
  override readonly name = MCP_SERVER_ERROR;
  constructor(
    readonly server: string,
    problem: string,
  ) {
    super(`MCP server "${server}": ${problem}`);
  }
}

/** The message with its cause (fetch's "fetch failed" says little; ECONNREFUSED says it all). */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause: unknown = error.cause;
  if (cause instanceof Error) {
    const code = (cause as NodeJS.ErrnoException).code;
    return `${error.message} (${code ?? cause.message})`;
  }
  return error.message;
}

/** The server (or the request's own timeout) gave up on the call: the connection may be fine. */
export function isTimeout(error: unknown): boolean {
  return error instanceof McpError && error.code === Number(ErrorCode.RequestTimeout);
}

/**
 * An answer from the server (a JSON-RPC error such as "unknown tool" or "invalid params"), as
 * opposed to a connection that broke: only a broken connection is worth reconnecting.
 */
export function isServerAnswer(error: unknown): boolean {
  return (
    error instanceof McpError &&
    error.code !== Number(ErrorCode.ConnectionClosed) &&
    error.code !== Number(ErrorCode.RequestTimeout)
  );
}
