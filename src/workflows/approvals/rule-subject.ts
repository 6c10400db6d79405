import { splitSimpleCommands, type ShellWord } from '../tools/shell-words';

/**
 * What an approval rule's pattern is matched against (issue 24): for run_command its command, for
 * a tool with a `path` the path, for any other tool its whole input. Pure and deterministic: the
 * workflow matches rules in signal handlers and lanes, and replay must match alike.
 */
export type RuleSubject =
  | {
      kind: 'command';
      /**
       * Each simple command of the line as its words, quotes removed and joined by one space; empty
       * when sh syntax keel cannot see through (substitutions, subshells) hides what runs.
       */
      commands: string[];
      /** Why no allow rule can cover it, when one cannot (chained, redirected, expanded). */
      notCoverable?: string;
      /** The line as written, blanks squeezed: forbid rules are matched against it too. */
      raw: string;
    }
  | { kind: 'path'; path: string }
  | { kind: 'input'; text: string };

export function ruleSubject(toolName: string, input: unknown, workspace?: string): RuleSubject {
  const record = isRecord(input) ? input : {};
  if (toolName === 'run_command' && typeof record.command === 'string') return commandSubject(record.command);
  if (typeof record.path === 'string') return { kind: 'path', path: normalizedPath(record.path, workspace) };
  return { kind: 'input', text: canonicalJson(input) };
}

/** The text a rule made from this very call would name: its command, path or input. */
export function subjectText(subject: RuleSubject): string {
  switch (subject.kind) {
    case 'command':
      return subject.commands.length === 1 && subject.notCoverable === undefined
        ? (subject.commands[0] ?? subject.raw)
        : subject.raw;
    case 'path':
      return subject.path;
    case 'input':
      return subject.text;
  }
}

/**
 * A command line as rules see it. An allow rule covers a line only when it is one plain command:
 * `npm test*` must not approve `npm test; rm -rf ~`, `npm test > package.json` or
 * `npm test $(curl …)`. Its words must be literal, because a pattern is matched against the
 * words as written and the shell would run something else after expanding `$X`, `*` or `~`.
 */
function commandSubject(command: string): RuleSubject {
  const raw = squeezeBlanks(command);
  const split = splitSimpleCommands(command);
  if (!split.ok) return { kind: 'command', commands: [], notCoverable: split.reason, raw };
  const commands = split.commands.map((words) => words.map((word) => word.text).join(' '));
  if (split.commands.length === 0) {
    return { kind: 'command', commands, notCoverable: 'it holds no command', raw };
  }
  if (split.commands.length > 1) {
    return { kind: 'command', commands, notCoverable: 'it chains several commands', raw };
  }
  const words = split.commands[0] ?? [];
  const redirected = words.find((word) => word.redirectedInput === true);
  if (redirected !== undefined) {
    return { kind: 'command', commands, notCoverable: `it redirects input from ${redirected.text}`, raw };
  }
  const expanding = words.find(expands);
  if (expanding !== undefined) {
    return {
      kind: 'command',
      commands,
      notCoverable: `"${expanding.text}" is expanded by the shell before it runs`,
      raw,
    };
  }
  return { kind: 'command', commands, raw };
}

/** An active `$`, glob character or leading `~`: the program would not receive the word as written. */
function expands(word: ShellWord): boolean {
  return /[$*?[]/.test(word.active) || word.active.startsWith('~') || /[=:]~/.test(word.active);
}

/**
 * A workspace path as rules see it: relative to the workspace, `.`, `..` and repeated `/`
 * resolved lexically (before the workspace is taken off, so `//ws/x` and `/ws/../ws/x` are `x`),
 * no leading `./`, no trailing `/`. A path that climbs out keeps its leading `..` (so `src/**`
 * never covers `src/../../etc/passwd`); an absolute path outside the workspace stays absolute.
 * Blanks are kept: ` src/x` is a directory named ` src`, which `src/**` does not name.
 */
export function normalizedPath(path: string, workspace?: string): string {
  const resolved = resolvedLexically(path);
  if (workspace === undefined || workspace === '') return resolved;
  const root = resolvedLexically(workspace);
  if (resolved === root) return '.';
  const prefix = root === '/' ? '/' : `${root}/`;
  return resolved.startsWith(prefix) ? resolved.slice(prefix.length) : resolved;
}

function resolvedLexically(path: string): string {
  const absolute = path.startsWith('/');
  const parts: string[] = [];
  for (const part of path.split('/')) {
    if (part === '' || part === '.') continue;
    if (part === '..' && parts.length > 0 && parts[parts.length - 1] !== '..') parts.pop();
    else if (part === '..' && absolute) continue;
    else parts.push(part);
  }
  const joined = parts.join('/');
  if (absolute) return `/${joined}`;
  return joined === '' ? '.' : joined;
}

/** JSON with keys in a fixed order, so one input is one text however the model ordered it. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

function squeezeBlanks(text: string): string {
  return text.replace(/[ \t]+/g, ' ').trim();
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
