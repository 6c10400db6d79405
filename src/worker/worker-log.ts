/** The worker's own log lines, each marked "keel worker:" (start, host claim, MCP servers). */
import type { ToolLogger } from '../activities/tools/define-tool';

export const workerLog: ToolLogger = {
  info: (message) => console.log(`keel worker: ${message}`),
  warn: (message) => console.warn(`keel worker: ${message}`),
  error: (message) => console.error(`keel worker: ${message}`),
};
