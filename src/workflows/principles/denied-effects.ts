import { splitRoughly } from '../tools/rough-words';

/**
 * What a call would delete, empty or replace in the workspace (issue 44): a human's denial is of
 * these effects, not of one spelling of them, so after `rm -rf build` is denied a `write_file`
 * emptying `build/a.txt`, `python3 -c "shutil.rmtree('build')"` or `cd build && rm *` is the same
 * request. One definition for the denial guard (call-intent.ts carries it in a call's intent), the
 * remembered denials and the check that holds such a call for a human. Pure and bounded: the
 * workflow matches with it in handlers and on replay.
 *
 * Effects come from what keel knows before a call changes anything: the paths the file tools
 * write, the changes a copy-on-write layer holds (deleted and modified; creating a new file
 * destroys nothing), and for a command the paths its text deletes or overwrites: the operands of
 * rm, mv, truncate and the like, redirection targets, and the quoted paths of an interpreter's
 * one-liner that deletes or writes (`python -c`, `node -e`, `perl -e`, `ruby -e`). A call whose
 * effects are not visible yet (network, a custom tool) is matched by its intent's text alone.
 */

/** The changes a copy-on-write layer holds for a call, as the workflow records them. */
export interface HeldChanges {
  readonly deleted: readonly string[];
  readonly modified: readonly string[];
}

/** Enough to recognise a call's effects; more would only grow the workflow's state. */
export const MAX_EFFECTS = 16;

/** keel's file tools: they replace (write_file) or change (edit_file) the file at `path`. */
const FILE_TOOLS: ReadonlySet<string> = new Set(['write_file', 'edit_file']);

/** Programs whose every operand is deleted, emptied or replaced. */
const DESTROYING: ReadonlySet<string> = new Set(['rm', 'rmdir', 'unlink', 'shred', 'truncate', 'mv', 'tee']);
/** Programs that replace only their last operand (the destination). */
const REPLACING_LAST: ReadonlySet<string> = new Set(['cp', 'ln', 'install', 'rsync']);
/** Programs that run another command: the words after them are that command. */
const WRAPPERS: ReadonlySet<string> = new Set([
  'sudo',
  'env',
  'nice',
  'nohup',
  'time',
  'timeout',
  'xargs',
  'command',
]);
const SHELLS = /^(?:sh|bash|dash|zsh|ksh|ash|mksh)$/;
/** Interpreters and the option that hands them a script on the command line. */
const ONE_LINERS: readonly (readonly [RegExp, RegExp])[] = [
  [/^python[0-9.]*$/, /^-[a-zA-Z]*c$/],
  [/^(?:node|nodejs|bun|deno)$/, /^(?:-e|-p|--eval|--print)$/],
  [/^perl$/, /^-[a-zA-Z]*[eE]$/],
  [/^ruby$/, /^-[a-zA-Z]*e$/],
];
/** A script that calls any of these may delete or overwrite the paths it quotes. */
const CHANGING_CALLS =
  /\b(?:rmtree|remove_tree|rmdir|rmdirSync|unlink|unlinkSync|remove|removedirs|rename|renameSync|replace|truncate|truncateSync|rm|rmSync|rm_rf|rm_r|writeFile|writeFileSync|write_text|write_bytes|copyfile|copy|copyFileSync|move|delete|open\s*\([^,()]*(?:\([^()]*\)[^,()]*)?,\s*(?:mode\s*=\s*)?["'](?=[rbt]*[wax+])[rwaxbt+]{1,3}["']|(?<=\.)open\s*\(\s*["'](?=[rbt]*[wax+])[rwaxbt+]{1,3}["'])/;
/** Quoted strings that are never paths: file modes and encodings (`open(p, 'w')`). */
const NOT_A_PATH = /^(?:[rwaxbt+]{1,3}|utf-?8|ascii|latin-?1|fs|path|node:fs|node:path|fs\/promises)$/i;
/** How many command lines inside command lines (`sh -c`) are read. */
const MAX_DEPTH = 3;

/**
 * The paths `toolName` with `input` would delete, empty or replace, normalized and sorted; with
 * `held`, also what its layer holds. Empty when nothing is known (a read, a network call).
 */
export function effectsOf(toolName: string, input: unknown, held?: HeldChanges): string[] {
  const paths = new Set<string>();
  const fields = input !== null && typeof input === 'object' ? (input as Record<string, unknown>) : {};
  if (FILE_TOOLS.has(toolName) && typeof fields.path === 'string') addPath(paths, fields.path);
  const command = fields.command ?? fields.cmd ?? fields.script;
  if (typeof command === 'string') for (const path of commandEffects(command, 0)) addPath(paths, path);
  for (const path of [...(held?.deleted ?? []), ...(held?.modified ?? [])]) addPath(paths, path);
  return [...paths].sort().slice(0, MAX_EFFECTS);
}

/**
 * Whether two sets of effects touch one place: the same path, or one inside the other. With the
 * goal's `workspace`, absolute paths inside it count as the relative ones the file tools take.
 */
export function effectsOverlap(a: readonly string[], b: readonly string[], workspace?: string): boolean {
  return overlappingEffects(a, b, workspace).length > 0;
}

/**
 * The paths of `effects` that touch one of `denied`, as places in the workspace, for saying plainly
 * what was refused. Both sides are resolved alike: a denial recorded as `/ws/build` (after
 * `cd /ws && rm -rf build`) covers `build/a.txt` and `src/../build/a.txt`.
 */
export function overlappingEffects(
  effects: readonly string[],
  denied: readonly string[],
  workspace?: string,
): string[] {
  const refused = denied.map((path) => placeOf(path, workspace));
  return effects
    .map((path) => placeOf(path, workspace))
    .filter((path) => refused.some((other) => samePlace(path, other)));
}

/**
 * Where `text` is, as the goal's tools resolve it: relative to `workspace` when inside it, `..`
 * and `.` segments resolved (posix), so that spellings which reach one file compare equal.
 */
export function placeOf(text: string, workspace?: string): string {
  const path = normalizePath(text);
  if (path === '.' || path === '/') return path;
  const root = workspace === undefined ? undefined : resolveSegments(normalizePath(workspace));
  const rooted = root !== undefined && root.startsWith('/');
  const absolute =
    path.startsWith('/') || !rooted ? resolveSegments(path) : resolveSegments(`${root}/${path}`);
  if (!rooted || root === '/') return absolute;
  if (absolute === root) return '.';
  return absolute.startsWith(`${root}/`) ? absolute.slice(root.length + 1) : absolute;
}

/** `a/./b/../c` as `a/c`; `..` above the root stays only on a relative path. */
function resolveSegments(path: string): string {
  const absolute = path.startsWith('/');
  const kept: string[] = [];
  for (const segment of path.split('/')) {
    if (segment === '' || segment === '.') continue;
    if (segment !== '..') kept.push(segment);
    else if (kept.length > 0 && kept[kept.length - 1] !== '..') kept.pop();
    else if (!absolute) kept.push('..');
  }
  return absolute ? `/${kept.join('/')}` : kept.join('/') || '.';
}

/** "build, dist/app.js", cut after a few paths: for prompts, reasons and the ledger. */
export function effectsText(effects: readonly string[], shown = 5): string {
  const listed = effects.slice(0, shown).join(', ');
  return effects.length > shown ? `${listed} and ${effects.length - shown} more` : listed;
}

/**
 * A path as the same place however it is spelled: `./build/`, `.//build`, `build/*` and `build`
 * are one. A leading `$PWD/` or `./`, trailing slashes and a trailing glob segment go; case is
 * kept (file systems differ on it). The workspace itself is `.`.
 */
export function normalizePath(text: string): string {
  let path = text.trim();
  path = path.replace(/^(\$PWD|\$\{PWD\}|\$\(pwd\))\/+/, '');
  path = path.replace(/^(\.\/+)+/, '');
  path = path.replace(/\/(\.\/)+/g, '/'); // build/./a.txt, build/. (a `cd build` then `.`)
  path = path.replace(/(\/\*+|\/\.)+$/, '');
  // `/` is the root, not `.` with a slash
  if (/^\/+$/.test(path)) return '/';
  path = path.replace(/\/+$/, '');
  return path === '' || /^\*+$/.test(path) ? '.' : path;
}

/**
 * The workspace itself and the root are never an effect: `find . -name '*.pyc' -delete` or
 * `rm -rf ./*` would otherwise make one denial hold every later write in the goal.
 */
function isEverywhere(path: string): boolean {
  return path === '.' || path === '/';
}

function samePlace(a: string, b: string): boolean {
  if (isEverywhere(a) || isEverywhere(b)) return false;
  if (a === b) return true;
  return a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

function addPath(paths: Set<string>, text: string): void {
  // /dev/null and friends are where output goes, not what a call changes
  if (text.trim() === '' || text.trim().startsWith('/dev/')) return;
  const place = placeOf(text);
  if (!isEverywhere(place)) paths.add(place);
}

/** The paths a command line deletes or overwrites, as far as its words show. */
function commandEffects(commandLine: string, depth: number): string[] {
  let directory: string | undefined;
  return splitRoughly(commandLine).flatMap((all) => {
    const { words, redirected } = withoutRedirections(all);
    const at = words.findIndex((word) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(word) && !WRAPPERS.has(word));
    const program = (words[at] ?? '').split('/').pop() ?? '';
    const args = at < 0 ? [] : words.slice(at + 1);
    const inDirectory = (path: string) =>
      directory === undefined || path.startsWith('/') ? path : `${directory}/${path}`;
    if (program === 'cd' || program === 'pushd') {
      const operand = args.find((word) => !word.startsWith('-'));
      directory =
        operand === undefined || /^[~$]/.test(operand) ? undefined : normalizePath(inDirectory(operand));
      return redirected.map(inDirectory);
    }
    return [...redirected, ...programEffects(program, args, depth)].map(inDirectory);
  });
}

/** find's tests that keep every file under its start paths: deleting with them deletes those paths. */
const FIND_KEEPING_ALL =
  /^-(?:depth|mindepth|maxdepth|xdev|mount|follow|noleaf|ignore_readdir_race|type|print0?)$/;
/** find's options that take a value (`-maxdepth 2`, `-type f`). */
const FIND_VALUED = /^-(?:mindepth|maxdepth|type)$/;

/**
 * What `find` deletes: its start paths, when it deletes (`-delete`, or `-exec` of a deleting
 * program) everything under them. A filter (`-name '*.pyc'`, `-newer x`) deletes files that
 * cannot be named before it runs: nothing is recorded rather than the whole start path.
 */
function findEffects(args: readonly string[]): string[] {
  const first = args.findIndex((word) => /^[-(!]/.test(word));
  const starts = first < 0 ? [...args] : args.slice(0, first);
  let deletes = false;
  for (let index = Math.max(first, 0); first >= 0 && index < args.length; index += 1) {
    const word = args[index] ?? '';
    if (word === '-delete') deletes = true;
    else if (word === '-exec' || word === '-execdir') {
      const end = args.findIndex((each, at) => at > index && (each === ';' || each === '+'));
      const program = (args[index + 1] ?? '').split('/').pop() ?? '';
      if (DESTROYING.has(program)) deletes = true;
      index = end < 0 ? args.length : end;
    } else if (FIND_VALUED.test(word)) index += 1;
    else if (!FIND_KEEPING_ALL.test(word)) return [];
  }
  return deletes ? starts.filter(Boolean) : [];
}

function programEffects(program: string, args: readonly string[], depth: number): string[] {
  const operands = args.filter((word) => !word.startsWith('-') && !/^\d+$/.test(word));
  if (DESTROYING.has(program)) return operands;
  if (REPLACING_LAST.has(program)) return operands.slice(-1);
  if (program === 'find') return findEffects(args);
  if (program === 'dd') return args.filter((word) => word.startsWith('of=')).map((word) => word.slice(3));
  if (program === 'sed' && args.some((word) => /^-[a-zA-Z]*i/.test(word) || word.startsWith('--in-place')))
    return operands.slice(1);
  if (depth < MAX_DEPTH && SHELLS.test(program)) {
    const option = args.findIndex((word) => /^-[a-z]*c[a-z]*$/.test(word));
    const script = option >= 0 ? args[option + 1] : undefined;
    return script === undefined ? [] : commandEffects(script, depth + 1);
  }
  const oneLiner = ONE_LINERS.find(([name]) => name.test(program));
  if (oneLiner) {
    const option = args.findIndex((word) => oneLiner[1].test(word));
    const script = option >= 0 ? args[option + 1] : undefined;
    return script === undefined ? [] : scriptEffects(script);
  }
  return [];
}

/** The words of a command without its redirections, and the files it writes through `>`. */
function withoutRedirections(all: readonly string[]): { words: string[]; redirected: string[] } {
  const words: string[] = [];
  const redirected: string[] = [];
  for (let index = 0; index < all.length; index += 1) {
    const word = all[index] ?? '';
    const mark = /^(?:\d*(?:>>|>\||>)|&>>?)(.*)$/.exec(word);
    if (mark === null) {
      if (!/^\d*(?:<<?-?|<<<|<>|<&\d*-?)$/.test(word)) words.push(word);
      continue;
    }
    const rest = mark[1] ?? '';
    if (rest.startsWith('&')) continue; // 2>&1: a descriptor, not a file
    if (rest !== '') redirected.push(rest);
    else {
      index += 1;
      const target = all[index];
      if (target !== undefined) redirected.push(target);
    }
  }
  return { words, redirected };
}

/**
 * The paths a one-liner quotes, when it calls something that deletes or writes; modes, encodings
 * and module names are not paths. A read-only one-liner changes nothing and names no effects.
 */
function scriptEffects(script: string): string[] {
  const code = script.replace(/require\s*\(?\s*(["'])[^"']*\1\s*\)?/g, '');
  if (!CHANGING_CALLS.test(code)) return [];
  const literals = [...code.matchAll(/(["'])((?:(?!\1)[^\\\n]|\\.){1,200})\1/g)].map(
    (match) => match[2] ?? '',
  );
  return literals.filter((text) => !/\s/.test(text) && !NOT_A_PATH.test(text));
}
