import { LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';
import { ScenarioError } from './scenario-error';

/**
 * A scenario file's text as data: YAML, or JSON (which YAML reads too). The first syntax error is
 * `<file>:<line>:<col>: <what>`, with the yaml library's own position and words.
 */
export function scenarioData(text: string, file: string): unknown {
  const lineCounter = new LineCounter();
  // prettyErrors off: the message stays one line, without the quoted source lines under it.
  const document = parseDocument(text, { lineCounter, prettyErrors: false });
  const [error] = document.errors;
  if (error !== undefined) {
    const { line, col } = lineCounter.linePos(error.pos[0]);
    throw new ScenarioError(`${file}:${line}:${col}: ${error.message}`, { source: file, line, column: col });
  }
  try {
    return document.toJS();
  } catch (error) {
    // What only resolving finds (an alias to an anchor not yet set): the yaml library gives no position.
    throw new ScenarioError(`${file}: ${firstLine(error)}`, { source: file });
  }
}

/** The scenario file cannot be read: its name and the system's reason (no such file, a directory). */
export function unreadable(file: string, error: unknown): ScenarioError {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const reason =
    code === 'ENOENT' ? 'no such file' : code === 'EISDIR' ? 'a directory, not a file' : firstLine(error);
  return new ScenarioError(`${file}: cannot read the scenario file: ${reason}`, { source: file });
}

/**
 * The schema's first objection as one line, `<source>: <field>: <what>`: the field written as in
 * the file (`turns[2].toolCalls[0].name`), an unknown field named by its own path, and a missing
 * one called missing rather than "received undefined".
 */
export function schemaProblem(error: z.ZodError, raw: unknown, source: string): ScenarioError {
  const [issue, ...others] = error.issues;
  if (issue === undefined) return new ScenarioError(`${source}: not a scenario`, { source });
  let path: PropertyKey[] = issue.path;
  let what = issue.message.replace(/^Invalid input: /, '');
  if (issue.code === 'unrecognized_keys') {
    const [key, ...more] = issue.keys;
    path = [...issue.path, key ?? ''];
    what = more.length === 0 ? 'unknown field' : `unknown field (also unknown: ${more.join(', ')})`;
  } else if (issue.code === 'invalid_type' && path.length > 0 && valueAt(raw, path) === undefined) {
    what = `missing (expected ${issue.expected})`;
  }
  if (others.length > 0)
    what += ` (and ${others.length} more ${others.length === 1 ? 'problem' : 'problems'})`;
  const field = fieldPath(path);
  return new ScenarioError(field === '' ? `${source}: ${what}` : `${source}: ${field}: ${what}`, {
    source,
    ...(field === '' ? {} : { field }),
  });
}

/** `turns[2].toolCalls[0].name`; a key that is not a plain name is quoted: `input["a b"]`. */
export function fieldPath(path: readonly PropertyKey[]): string {
  return path
    .map((key, index) => {
      if (typeof key === 'number') return `[${key}]`;
      const name = String(key);
      if (/^[A-Za-z_$][\w$]*$/.test(name)) return index === 0 ? name : `.${name}`;
      return `[${JSON.stringify(name)}]`;
    })
    .join('');
}

function valueAt(raw: unknown, path: readonly PropertyKey[]): unknown {
  let value = raw;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
