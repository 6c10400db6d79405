import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type * as Yaml from 'yaml';
import { z } from 'zod';
import { mcpServersConfigSchema } from '../activities/mcp/mcp-config';
import { reflectionStoreSectionSchema } from '../activities/reflection-store/create-reflection-store';

/**
 * keel.config.yaml: the worker's own configuration (its MCP servers and reflection store; the CLI
 * reads the same file for `keel reflections`, so both find the same notes). It lives here because
 * the file belongs to the worker as a whole; each section's schema lives with the code that uses it.
 */
export const KEEL_CONFIG_FILE = 'keel.config.yaml';

export const keelConfigSchema = z.strictObject({
  mcpServers: mcpServersConfigSchema.optional(),
  reflectionStore: reflectionStoreSectionSchema.optional(),
});
export type KeelConfig = z.infer<typeof keelConfigSchema>;

export const KEEL_CONFIG_ERROR = 'KeelConfigError';

/** One line naming the file and the key at fault, e.g. `keel.config.yaml: mcpServers.x: unknown key "comand"`. */
export class KeelConfigError extends Error {
  override readonly name = KEEL_CONFIG_ERROR;
}

/** Parses and validates the text of a keel config; `fileName` only labels the error. */
export function parseKeelConfig(text: string, fileName: string = KEEL_CONFIG_FILE): KeelConfig {
  // Loaded when there is a file to parse: a worker without one (the default) starts without it.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { parseDocument } = require('yaml') as typeof Yaml;
  const document = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  const yamlError = document.errors[0];
  if (yamlError !== undefined) {
    throw new KeelConfigError(`${fileName}: not valid YAML: ${yamlError.message.split('\n')[0] ?? ''}`);
  }
  const value: unknown = document.toJS() ?? {}; // an empty file configures nothing
  return validateKeelConfig(value, fileName);
}

/** Validates a config given as a value (worker options); `label` names it in the error. */
export function validateKeelConfig(value: unknown, label = 'keel config'): KeelConfig {
  const parsed = keelConfigSchema.safeParse(value, { reportInput: true });
  if (parsed.success) return parsed.data;
  throw new KeelConfigError(`${label}: ${describeIssue(firstIssue(parsed.error.issues))}`);
}

/**
 * The config of a worker started in `cwd`: the file KEEL_CONFIG names (which must exist), else
 * keel.config.yaml in `cwd`, else none (no MCP servers).
 */
export function loadKeelConfig(options: { cwd: string; env: Readonly<Record<string, string | undefined>> }): {
  config: KeelConfig;
  file: string | undefined;
} {
  const named = options.env.KEEL_CONFIG;
  if (named !== undefined && named !== '') {
    const file = path.resolve(options.cwd, named);
    if (!existsSync(file)) throw new KeelConfigError(`${named}: no such file (named by KEEL_CONFIG)`);
    return { config: parseKeelConfig(readFileSync(file, 'utf8'), named), file };
  }
  const file = path.join(options.cwd, KEEL_CONFIG_FILE);
  if (!existsSync(file)) return { config: {}, file: undefined };
  return { config: parseKeelConfig(readFileSync(file, 'utf8'), KEEL_CONFIG_FILE), file };
}

/**
 * The issue to report: an unknown key first (a typo explains the "missing" key next to it), and
 * for a bad record key the key's own issue, which says what is actually wrong.
 */
function firstIssue(issues: readonly z.core.$ZodIssue[]): z.core.$ZodIssue {
  const issue = issues.find((candidate) => candidate.code === 'unrecognized_keys') ?? issues[0];
  if (issue === undefined) throw new Error('zod reported a failure without issues');
  if (issue.code === 'invalid_key' && issue.issues.length > 0) {
    const inner = firstIssue(issue.issues);
    // The key's issue has no path of its own: report it on the record, naming the key.
    return { ...inner, path: issue.path.slice(0, -1) };
  }
  return issue;
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const where = issue.path.map(String).join('.');
  const prefix = where === '' ? '' : `${where}: `;
  if (issue.code === 'unrecognized_keys') {
    const keys = issue.keys.map((key) => `"${key}"`).join(', ');
    return `${prefix}unknown key${issue.keys.length > 1 ? 's' : ''} ${keys}`;
  }
  if (issue.code === 'invalid_key') return `${prefix}${issue.message}`;
  if (issue.code === 'invalid_type' && issue.input === undefined) return `${prefix}is required`;
  if (typeof issue.input !== 'string') return `${prefix}${issue.message}`;
  // keel's own messages continue the value (`"ANTHROPIC_API_KEY" is keel's own...`); zod's stand alone.
  const ours = issue.code === 'custom' || issue.code === 'invalid_format';
  return ours
    ? `${prefix}"${issue.input}" ${issue.message}`
    : `${prefix}${issue.message} (got "${issue.input}")`;
}
