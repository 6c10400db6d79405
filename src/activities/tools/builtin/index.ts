import type { AnyToolDefinition } from '../define-tool';
import { editFileTool } from './edit-file';
import { listDirTool } from './list-dir';
import { readFileTool } from './read-file';
import { runCommandTool } from './run-command';
import { searchTool } from './search';
import { writeFileTool } from './write-file';

/** keel's six workspace tools, written with the public tool API (the examples to copy). */
export const builtinTools: readonly AnyToolDefinition[] = [
  readFileTool,
  listDirTool,
  searchTool,
  writeFileTool,
  editFileTool,
  runCommandTool,
];

export { editFileTool, listDirTool, readFileTool, runCommandTool, searchTool, writeFileTool };
